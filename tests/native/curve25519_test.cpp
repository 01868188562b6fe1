// X25519 and XEdDSA: Wycheproof, libsignal's and libsignal-protocol-c's vectors, and properties.
#include "crypto/curve25519.h"

#include <sodium.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <array>
#include <vector>
#include <string>

#include "common/random.h"
#include "crypto/ed25519_base.h"
#include "crypto/fe64.h"
#include "crypto/fe_invert.h"
#include "test_util.h"

namespace wacore::curve {
namespace {

using test::Bytes;
using test::from_hex;
using test::to_hex;

bool has_flag(const nlohmann::json& t, const std::string& flag) {
  const auto& f = t["flags"];
  return std::find(f.begin(), f.end(), flag) != f.end();
}

// Policy (documented in curve25519.h and the README): every Wycheproof case computes and matches,
// except that a result of all zeros (flag ZeroSharedSecret, always on a low-order public key) is
// rejected with ERR_LOW_ORDER_POINT. "acceptable" cases are thereby pinned down exactly.
TEST(X25519, WycheproofAllCasesFollowTheLowOrderPolicy) {
  WACORE_WYCHEPROOF_OR_SKIP(doc, "x25519_test.json");
  int valid = 0, rejected = 0, computed_acceptable = 0;
  for (const auto& group : doc["testGroups"]) {
    ASSERT_EQ(group["curve"], "curve25519");
    for (const auto& t : group["tests"]) {
      SCOPED_TRACE("tcId " + std::to_string(t["tcId"].get<int>()) + ": " + t["comment"].get<std::string>());
      const Bytes pub = from_hex(t["public"].get<std::string>());
      const Bytes priv = from_hex(t["private"].get<std::string>());
      const std::string want = t["shared"].get<std::string>();
      ASSERT_EQ(pub.size(), kKeyBytes);
      ASSERT_EQ(priv.size(), kPrivateKeyBytes);
      uint8_t shared[kSharedSecretBytes];
      const Error e = agreement(pub.data(), priv.data(), shared);
      if (has_flag(t, "ZeroSharedSecret")) {
        ASSERT_NE(t["result"], "valid");
        EXPECT_EQ(e, Error::low_order_point);
        EXPECT_EQ(to_hex(shared, sizeof shared), std::string(64, '0'));
        rejected++;
      } else {
        EXPECT_EQ(e, Error::ok);
        EXPECT_EQ(to_hex(shared, sizeof shared), want);
        (t["result"] == "valid" ? valid : computed_acceptable)++;
      }
    }
  }
  EXPECT_EQ(valid, 264);
  EXPECT_EQ(valid + rejected + computed_acceptable, 518);
  EXPECT_GT(rejected, 0);
}

// signalapp/libsignal rust/core/src/curve/curve25519.rs, test_agreement.
TEST(X25519, LibsignalAgreementVector) {
  const Bytes alice_pub = from_hex("1bb75966f2e93a3691dfff942bb2a466a1c08b8d78ca3f4d6df8b8bfa2e4ee28");
  const Bytes alice_priv = from_hex("c806439dc9d2c476ffed8f2580c0888d58ab406bf7ae3698879021b96bb4bf59");
  const Bytes bob_pub = from_hex("653614993d2b15ee9e5fd3d86ce719ef4ec1daae1886a87b3f5fa9565a27a22f");
  const Bytes bob_priv = from_hex("b03b34c33a1c44f225b662d2bf4859b8135411fa7b0386d45fb75dc5b91b4466");
  const std::string shared = "325f239328941ced6e673b86ba41017448e99b649a9c3806c1dd7ca4c477e629";

  uint8_t out[32];
  ASSERT_EQ(public_from_private(alice_priv.data(), out), Error::ok);
  EXPECT_EQ(to_hex(out, 32), to_hex(alice_pub));
  ASSERT_EQ(public_from_private(bob_priv.data(), out), Error::ok);
  EXPECT_EQ(to_hex(out, 32), to_hex(bob_pub));
  ASSERT_EQ(agreement(bob_pub.data(), alice_priv.data(), out), Error::ok);
  EXPECT_EQ(to_hex(out, 32), shared);
  ASSERT_EQ(agreement(alice_pub.data(), bob_priv.data(), out), Error::ok);
  EXPECT_EQ(to_hex(out, 32), shared);
}

TEST(X25519, GeneratedPairsAgreeAndAreClamped) {
  for (int i = 0; i < 50; i++) {
    uint8_t a_priv[32], a_pub[32], b_priv[32], b_pub[32], s1[32], s2[32];
    ASSERT_EQ(generate_key_pair(a_priv, a_pub), Error::ok);
    ASSERT_EQ(generate_key_pair(b_priv, b_pub), Error::ok);
    EXPECT_EQ(a_priv[0] & 7, 0);
    EXPECT_EQ(a_priv[31] & 0xC0, 0x40);
    ASSERT_EQ(agreement(b_pub, a_priv, s1), Error::ok);
    ASSERT_EQ(agreement(a_pub, b_priv, s2), Error::ok);
    EXPECT_EQ(to_hex(s1, 32), to_hex(s2, 32));
  }
}

// Our fixed-base multiplication (table made at first use) against libsodium's (shipped table): the
// same points for random scalars, the edge scalars, and X25519 public keys equal to
// crypto_scalarmult_curve25519_base's.
TEST(FixedBase, EqualsLibsodiumOnRandomAndEdgeScalars) {
  std::vector<std::array<uint8_t, 32>> scalars;
  std::array<uint8_t, 32> s{};
  scalars.push_back(s);  // 0: the identity
  s[0] = 1;
  scalars.push_back(s);  // B itself
  for (int i = 0; i < 32; i++) s[i] = 0xFF;
  s[31] = 0x7F;
  scalars.push_back(s);  // 2^255 - 1, the largest allowed
  for (int i = 0; i < 32; i++) s[i] = static_cast<uint8_t>(i % 2 ? 0x88 : 0x77);  // digits at +-8
  s[31] &= 0x7F;
  scalars.push_back(s);
  for (int i = 0; i < 500; i++) {
    randombytes_buf(s.data(), s.size());
    s[31] &= 0x7F;
    scalars.push_back(s);
  }
  for (const auto& a : scalars) {
    ge25519_p3 ours, theirs;
    base_mult(&ours, a.data());
    ge25519_scalarmult_base(&theirs, a.data());
    uint8_t x[32], y[32];
    ge25519_p3_tobytes(x, &ours);
    ge25519_p3_tobytes(y, &theirs);
    ASSERT_EQ(to_hex(x, 32), to_hex(y, 32)) << to_hex(a.data(), 32);
    uint8_t pub[32], want[32];
    ASSERT_EQ(public_from_private(a.data(), pub), Error::ok);
    ASSERT_EQ(crypto_scalarmult_curve25519_base(want, a.data()), 0);
    ASSERT_EQ(to_hex(pub, 32), to_hex(want, 32));
  }
}

// A random multiple P of B, and -P decoded from P's encoding.
void random_point(ge25519_p3& p, ge25519_p3& minus_p) {
  uint8_t k[32], enc[32];
  randombytes_buf(k, sizeof k);
  k[31] &= 0x7F;
  base_mult(&p, k);
  ge25519_p3_tobytes(enc, &p);
  ASSERT_EQ(ge25519_frombytes_negate_vartime(&minus_p, enc), 0);
}

// Two random scalars below 2^255 for round i of a test; at round first, a is zero; at first + 1, b
// is; at first + 2, both are 2^255 - 1.
void scalar_pair(uint8_t a[32], uint8_t b[32], int i, int first) {
  randombytes_buf(a, 32);
  randombytes_buf(b, 32);
  a[31] &= 0x7F;
  b[31] &= 0x7F;
  if (i == first) std::memset(a, 0, 32);
  if (i == first + 1) std::memset(b, 0, 32);
  if (i == first + 2) {
    std::memset(a, 0xFF, 32);
    std::memset(b, 0xFF, 32);
    a[31] = b[31] = 0x7F;
  }
}

// Verification's double-scalar multiplication against libsodium's, on random points and scalars
// (and the zero and all-ones-below-2^255 scalars).
TEST(FixedBase, DoubleMultEqualsLibsodium) {
  for (int i = 0; i < 300; i++) {
    uint8_t a[32], b[32];
    ge25519_p3 p, minus_p;
    random_point(p, minus_p);
    scalar_pair(a, b, i, 1);
    OddMultiples odd;
    odd_multiples(odd, minus_p);
    ge25519_p2 ours, theirs;
    double_mult_vartime(&ours, a, odd, b);
    ge25519_double_scalarmult_vartime(&theirs, a, &minus_p, b);
    uint8_t x[32], y[32];
    ge25519_tobytes(x, &ours);
    ge25519_tobytes(y, &theirs);
    ASSERT_EQ(to_hex(x, 32), to_hex(y, 32)) << i;
  }
}

// The comb form of the double-scalar multiplication against the NAF form and libsodium's, on random
// points, the same points plus a point of order 8, 4 or 2, and the small-order points and the
// identity themselves (a verifying key can decode to any of them); scalars below 2^255, the zero
// and all-ones scalars included, and columns that between them select every entry of both combs.
// Encodings of the identity and of points of order 2, 4 and 8 (y = 1, y = -1, y = 0 with either sign
// of x, and the two y of the order-8 points): RFC 8032's and libsodium's small-order list.
constexpr int kSmallOrderCount = 7;
const uint8_t kSmallOrder[kSmallOrderCount][32] = {
    {0x01},
    {0xec, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
    {0x00},
    {0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80},
    {0x26, 0xe8, 0x95, 0x8f, 0xc2, 0xb2, 0x27, 0xb0, 0x45, 0xc3, 0xf4, 0x89, 0xf2, 0xef, 0x98, 0xf0,
     0xd5, 0xdf, 0xac, 0x05, 0xd3, 0xc6, 0x33, 0x39, 0xb1, 0x38, 0x02, 0x88, 0x6d, 0x53, 0xfc, 0x05},
    {0xc7, 0x17, 0x6a, 0x70, 0x3d, 0x4d, 0xd8, 0x4f, 0xba, 0x3c, 0x0b, 0x76, 0x0d, 0x10, 0x67, 0x0f,
     0x2a, 0x20, 0x53, 0xfa, 0x2c, 0x39, 0xcc, 0xc6, 0x4e, 0xc7, 0xfd, 0x77, 0x92, 0xac, 0x03, 0x7a},
    {0x26, 0xe8, 0x95, 0x8f, 0xc2, 0xb2, 0x27, 0xb0, 0x45, 0xc3, 0xf4, 0x89, 0xf2, 0xef, 0x98, 0xf0,
     0xd5, 0xdf, 0xac, 0x05, 0xd3, 0xc6, 0x33, 0x39, 0xb1, 0x38, 0x02, 0x88, 0x6d, 0x53, 0xfc, 0x85},
};

TEST(FixedBase, DoubleMultCombEqualsNafAndLibsodium) {
  static CombMultiples comb;  // 3.7 KB
  for (int i = 0; i < 300; i++) {
    uint8_t a[32], b[32];
    ge25519_p3 p, minus_p;
    random_point(p, minus_p);
    if (i % 4 == 1 || i < 8) {  // a small-order point: alone (i < 8) or added to the random one
      ge25519_p3 small_order;
      ASSERT_EQ(ge25519_frombytes(&small_order, kSmallOrder[i % kSmallOrderCount]), 0);
      if (i < 8) {
        minus_p = small_order;
      } else {
        ge25519_cached c;
        ge25519_p1p1 sum;
        ge25519_p3_to_cached(&c, &small_order);
        ge25519_add(&sum, &p, &c);
        ge25519_p1p1_to_p3(&minus_p, &sum);
      }
    }
    scalar_pair(a, b, i, 9);
    if (i == 12 || i == 13) {  // column k selects entry k + 1 (a) or 31 - k (b): all 31 of each
      std::memset(a, 0, sizeof a);
      std::memset(b, 0, sizeof b);
      for (int col = 0; col < 31; col++) {
        for (int j = 0; j < kCombTeeth; j++) {
          const int bit = col + (i == 12 ? 0 : 20) + kCombSpacing * j;
          if (((col + 1) >> j) & 1) a[bit / 8] |= static_cast<uint8_t>(1 << (bit % 8));
          if (((31 - col) >> j) & 1) b[bit / 8] |= static_cast<uint8_t>(1 << (bit % 8));
        }
      }
    }
    OddMultiples odd;
    odd_multiples(odd, minus_p);
    comb_multiples(comb, minus_p);
    ge25519_p2 by_comb, by_naf, theirs;
    double_mult_comb(&by_comb, a, comb, b);
    double_mult_vartime(&by_naf, a, odd, b);
    ge25519_double_scalarmult_vartime(&theirs, a, &minus_p, b);
    uint8_t x[32], y[32], z[32];
    ge25519_tobytes(x, &by_comb);
    ge25519_tobytes(y, &by_naf);
    ge25519_tobytes(z, &theirs);
    ASSERT_EQ(to_hex(x, 32), to_hex(z, 32)) << i;
    ASSERT_EQ(to_hex(y, 32), to_hex(z, 32)) << i;
  }
}

// Our ladder against libsodium's X25519 on random private keys and random (also non-canonical and
// bit-255-set) public values.
TEST(X25519, LadderEqualsLibsodiumOnRandomInputs) {
  for (int i = 0; i < 300; i++) {
    uint8_t k[32], u[32], ours[32], theirs[32];
    randombytes_buf(k, sizeof k);
    randombytes_buf(u, sizeof u);
    if (i % 3 == 0) std::memset(u + 1, 0xFF, 31);  // u >= p for most first bytes, bit 255 set
    const Error e = agreement(u, k, ours);
    const int rc = crypto_scalarmult_curve25519(theirs, k, u);
    ASSERT_EQ(e == Error::ok, rc == 0) << to_hex(u, 32);
    if (rc == 0) {
      ASSERT_EQ(to_hex(ours, 32), to_hex(theirs, 32)) << to_hex(u, 32);
    }
  }
}

// The ladder's int64-limb field arithmetic (fe64.h) against libsodium's fe25519 on the same limbs:
// random field elements, their sums and differences (the ladder's unreduced inputs), and limbs at
// the bounds the ladder can reach; results compared as canonical bytes, and mul's limbs kept within
// what the next operation accepts.
TEST(Fe64, EqualsLibsodiumFieldArithmetic) {
  using namespace fe64;
  auto random_fe = [](fe25519 out) {
    uint8_t bytes[32];
    randombytes_buf(bytes, sizeof bytes);
    fe25519_frombytes(out, bytes);
  };
  auto same = [](const Fe& ours, const fe25519 theirs) {
    fe25519 n;
    narrow(n, ours);
    uint8_t a[32], b[32];
    fe25519_tobytes(a, n);
    fe25519_tobytes(b, theirs);
    return to_hex(a, 32) == to_hex(b, 32);
  };
  // A carried limb is within half its width's range (2^25 even, 2^24 odd), but for the few units the
  // last carries of the chain add.
  auto carried = [](const Fe& f) {
    for (int i = 0; i < 10; i++) {
      const int64_t bound = (int64_t{1} << (i & 1 ? 24 : 25)) + 64;
      if (f.v[i] > bound || f.v[i] < -bound) return false;
    }
    return true;
  };
  for (int round = 0; round < 3000; round++) {
    fe25519 f, g, h, want;
    random_fe(f);
    random_fe(g);
    random_fe(h);
    if (round % 5 == 1) {  // sums and differences of two reduced elements: the ladder's inputs
      fe25519_add(f, f, h);
      fe25519_sub(g, g, h);
    } else if (round % 5 == 2) {  // every limb at its extreme, as far as fe25519 reaches after add
      for (int i = 0; i < 10; i++) {
        const int32_t top = (int32_t{1} << (i & 1 ? 25 : 26)) + (int32_t{1} << (i & 1 ? 24 : 25));
        // The signs per limb from the round number: all alike in some rounds, mixed in others.
        f[i] = ((round >> (3 + i % 4)) & 1) ? -top : top;
        g[i] = ((round >> (4 + i % 3)) & 1) ? -top : top;
      }
    }
    Fe wf, wg, out;
    widen(wf, f);
    widen(wg, g);
    mul(out, wf, wg);
    fe25519_mul(want, f, g);
    ASSERT_TRUE(same(out, want)) << round;
    ASSERT_TRUE(carried(out)) << round;
    sq(out, wf);
    fe25519_sq(want, f);
    ASSERT_TRUE(same(out, want)) << round;
    ASSERT_TRUE(carried(out)) << round;
    mul_small(out, wf, 121665);
    fe25519_scalar_product(want, f, 121665);
    ASSERT_TRUE(same(out, want)) << round;
    ASSERT_TRUE(carried(out)) << round;
    Fe x = wf, y = wg;
    cswap(x, y, 1);
    ASSERT_TRUE(same(x, g) && same(y, f));
    cswap(x, y, 0);
    ASSERT_TRUE(same(x, g) && same(y, f));
  }
}

// The divstep inversion against libsodium's z^(p-2): random elements, elements of every byte
// pattern that reaches the bounds (0, 1, p - 1, p, p + 1 and 2^255 - 1 as bytes, small values,
// single bits), non-canonical limbs, and z · (1 / z) = 1.
TEST(FeInvert, EqualsLibsodiumAndInverts) {
  auto check = [](const fe25519 z, const std::string& what) {
    fe25519 ours, theirs, product, one;
    invert(ours, z);
    fe25519_invert(theirs, z);
    uint8_t a[32], b[32], c[32];
    fe25519_tobytes(a, ours);
    fe25519_tobytes(b, theirs);
    ASSERT_EQ(to_hex(a, 32), to_hex(b, 32)) << what;
    fe25519_mul(product, ours, z);
    fe25519_tobytes(c, product);
    uint8_t zb[32];
    fe25519_tobytes(zb, z);
    const bool zero = std::all_of(zb, zb + 32, [](uint8_t x) { return x == 0; });
    fe25519_1(one);
    uint8_t o[32];
    fe25519_tobytes(o, one);
    ASSERT_EQ(to_hex(c, 32), zero ? std::string(64, '0') : to_hex(o, 32)) << what;
    fe25519 in_place;
    fe25519_copy(in_place, z);
    invert(in_place, in_place);
    fe25519_tobytes(c, in_place);
    ASSERT_EQ(to_hex(c, 32), to_hex(a, 32)) << what << " (in place)";
  };
  auto from = [](const Bytes& bytes) {
    fe25519 z;
    fe25519_frombytes(z, bytes.data());
    return std::vector<int32_t>(z, z + 10);
  };
  std::vector<std::vector<int32_t>> cases;
  Bytes p = from_hex("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f");
  for (int delta : {-1, 0, 1, 2, 18, 19}) {  // p - 1, p, p + 1, p + 2, 2^255 - 1, 2^255 (bit 255 dropped)
    Bytes b = p;
    int carry = delta;
    for (auto& x : b) {
      const int v = x + carry;
      x = static_cast<uint8_t>(v & 0xff);
      carry = v >> 8;
    }
    cases.push_back(from(b));
  }
  for (uint32_t small : {0u, 1u, 2u, 3u, 19u, 121665u, 121666u, 0xffffffffu}) {
    Bytes b(32, 0);
    for (int i = 0; i < 4; i++) b[i] = static_cast<uint8_t>(small >> (8 * i));
    cases.push_back(from(b));
  }
  for (int bit = 0; bit < 255; bit++) {
    Bytes b(32, 0);
    b[bit / 8] = static_cast<uint8_t>(1 << (bit % 8));
    cases.push_back(from(b));
    for (auto& x : b) x = static_cast<uint8_t>(~x);
    b[31] &= 0x7f;
    cases.push_back(from(b));
  }
  for (int round = 0; round < 20000; round++) {
    Bytes b(32);
    randombytes_buf(b.data(), b.size());
    // Some rounds with long runs of equal bits, where divsteps take their longest paths.
    if (round % 4 == 1) for (int i = 0; i < 32; i++) b[i] = (i < (round % 29)) ? 0 : b[i];
    if (round % 4 == 2) for (int i = 0; i < 32; i++) b[i] = (i < (round % 31)) ? 0xff : b[i];
    cases.push_back(from(b));
  }
  for (size_t i = 0; i < cases.size(); i++) {
    fe25519 z;
    std::copy(cases[i].begin(), cases[i].end(), z);
    check(z, "case " + std::to_string(i));
    if (i % 3 == 0) {  // the same element with non-canonical limbs, as a sum leaves them
      fe25519 t, w;
      fe25519_add(t, z, z);
      fe25519_sub(w, t, z);
      check(w, "case " + std::to_string(i) + " as t - z");
    }
  }
}

// The compressed points through the divstep inversion equal libsodium's encodings.
TEST(FeInvert, PointEncodingsEqualLibsodium) {
  for (int round = 0; round < 500; round++) {
    uint8_t a[32];
    randombytes_buf(a, sizeof a);
    a[31] &= 0x7f;
    ge25519_p3 point;
    base_mult(&point, a);
    uint8_t ours[32], theirs[32];
    p3_tobytes(ours, point);
    ge25519_p3_tobytes(theirs, &point);
    ASSERT_EQ(to_hex(ours, 32), to_hex(theirs, 32)) << round;
    ge25519_p2 p2;
    fe25519_copy(p2.X, point.X);
    fe25519_copy(p2.Y, point.Y);
    fe25519_copy(p2.Z, point.Z);
    p2_tobytes(ours, p2);
    ge25519_tobytes(theirs, &p2);
    ASSERT_EQ(to_hex(ours, 32), to_hex(theirs, 32)) << round;
  }
}

TEST(PublicKey, Accepts33ByteDjbAnd32ByteKeysOnly) {
  Bytes k33(33, 0x11), k32(32, 0x22);
  k33[0] = kDjbType;
  uint8_t u[32];
  EXPECT_EQ(parse_public_key(k33, u), Error::ok);
  EXPECT_EQ(u[0], 0x11);
  EXPECT_EQ(parse_public_key(k32, u), Error::ok);
  EXPECT_EQ(u[0], 0x22);
  k33[0] = 0x01;
  EXPECT_EQ(parse_public_key(k33, u), Error::key_type);
  for (size_t n : {0, 1, 31, 34, 64}) {
    EXPECT_EQ(parse_public_key(Bytes(n, kDjbType), u), Error::key_length) << n;
  }
}

struct SignatureVector {
  Bytes private_key, public_key, message, signature;
};

// signalapp/libsignal rust/core/src/curve/curve25519.rs, test_signature: a libsignal signature.
SignatureVector libsignal_vector() {
  return {from_hex("c097248412e58bf05df487968205132794178e367637f5818f81e0e6ce73e865"),
          from_hex("ab7e717d4a163b7d9a1d8071dfe9dcf8cdcd1cea3339b6356be84d887e322c64"),
          from_hex("05edce9d9c415ca78cb7252e72c2c4a554d3eb29485a0e1d503118d1a82d99fb4a"),
          from_hex("5de88ca9a89b4a115da79109c67c9c7464a3e4180274f1cb8c63c2984e286dfb"
                   "ede82deb9dcd9fae0bfbb821569b3d9001bd8130cd11d486cef047bd60b86e88")};
}

TEST(XEdDSA, VerifiesLibsignalVectorAndRejectsEveryBitFlip) {
  const auto v = libsignal_vector();
  uint8_t pub[32];
  ASSERT_EQ(public_from_private(v.private_key.data(), pub), Error::ok);
  EXPECT_EQ(to_hex(pub, 32), to_hex(v.public_key));
  EXPECT_TRUE(verify(v.public_key.data(), v.message, v.signature.data()));
  for (size_t byte = 0; byte < kSignatureBytes; byte++) {
    for (int bit = 0; bit < 8; bit++) {
      Bytes sig = v.signature;
      sig[byte] ^= static_cast<uint8_t>(1 << bit);
      EXPECT_FALSE(verify(v.public_key.data(), v.message, sig.data())) << byte << ":" << bit;
    }
  }
  Bytes msg = v.message;
  msg[5] ^= 1;
  EXPECT_FALSE(verify(v.public_key.data(), msg, v.signature.data()));
}

// signalapp/libsignal-protocol-c src/curve25519/ed25519/tests/internal_fast_tests.c: private key
// 0..0 with byte 8 = 189 (clamped), 200 zero bytes, zero randomness. curvesigs_fast_test is the
// signature libsignal's form produces; xeddsa_fast_test is the XEdDSA paper's form (A negated to
// sign bit 0), which verifies under the same rule.
TEST(XEdDSA, SigningMatchesLibsignalProtocolC) {
  Bytes priv(32, 0);
  priv[8] = 189;
  clamp(priv.data());
  const Bytes msg(200, 0), z(64, 0);
  uint8_t sig[64];
  sign_with_random(priv.data(), msg, z.data(), sig);
  EXPECT_EQ(to_hex(sig, 64),
            "cf873d0379ac20e8893e5567ee0f8951f8db840d26b243b463526689d01ca718"
            "ac189fb1678574ebdde569330659448b0bd6c1973f7d780ab39518626803d782");
  uint8_t pub[32];
  ASSERT_EQ(public_from_private(priv.data(), pub), Error::ok);
  EXPECT_EQ(to_hex(pub, 32), "5995f464e9d34d5ca56b9905b9a3cc37c456b2d8d313edbcf584b705b5c04955");
  EXPECT_TRUE(verify(pub, msg, sig));
  const Bytes xeddsa = from_hex(
      "11c7f3e6c4df9e8a5150e1db3b30f92de3a3b3aa438656545fa7390f4bcc7bb2"
      "6c431d9e90643e4f0eaa0e9c557766fa69ada576d63dcaf2ac326c11d0b97702");
  EXPECT_TRUE(verify(pub, msg, xeddsa.data()));
  Bytes bad = xeddsa;
  bad[0] ^= 1;
  EXPECT_FALSE(verify(pub, msg, bad.data()));
  const Bytes all_ff(32, 0xFF);
  EXPECT_FALSE(verify(all_ff.data(), msg, xeddsa.data()));
}

// libsignal-node (curve25519-js) signs deterministically: nonce = SHA-512(a || M), no randomness.
// Computed with npm libsignal@6.0.0 from the inputs of SigningMatchesLibsignalProtocolC.
TEST(XEdDSA, VerifiesLibsignalNodeDeterministicSignature) {
  const Bytes pub = from_hex("5995f464e9d34d5ca56b9905b9a3cc37c456b2d8d313edbcf584b705b5c04955");
  const Bytes sig = from_hex(
      "f67ab89d89aa3de53403369ef4c7e0d5685349285e72a8516cfe9d1ddb17a3e3"
      "4dc0d9a6e4973a83922e44a2a5562bbdb8add724cba04e66d220655ebccfd186");
  EXPECT_TRUE(verify(pub.data(), Bytes(200, 0), sig.data()));
}

TEST(XEdDSA, RejectsSAtOrAbove2To253AndUMinusOne) {
  const auto v = libsignal_vector();
  Bytes sig = v.signature;
  sig[63] |= 0x20;
  EXPECT_FALSE(verify(v.public_key.data(), v.message, sig.data()));
  sig = v.signature;
  sig[63] |= 0x40;
  EXPECT_FALSE(verify(v.public_key.data(), v.message, sig.data()));
  // u = p - 1 = -1 has no Edwards image.
  Bytes minus_one = from_hex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f");
  EXPECT_FALSE(verify(minus_one.data(), v.message, v.signature.data()));
}

TEST(XEdDSA, RandomisedSignaturesVerifyAtEveryMessageLength) {
  uint8_t priv[32], pub[32], other_priv[32], other_pub[32];
  ASSERT_EQ(generate_key_pair(priv, pub), Error::ok);
  ASSERT_EQ(generate_key_pair(other_priv, other_pub), Error::ok);
  Bytes msg;
  for (size_t n = 0; n <= 300; n++) {
    uint8_t sig[64], sig2[64];
    ASSERT_EQ(sign(priv, msg, sig), Error::ok);
    ASSERT_EQ(sign(priv, msg, sig2), Error::ok);
    EXPECT_NE(to_hex(sig, 64), to_hex(sig2, 64)) << "fresh randomness each time";
    EXPECT_TRUE(verify(pub, msg, sig)) << n;
    EXPECT_TRUE(verify(pub, msg, sig2)) << n;
    EXPECT_FALSE(verify(other_pub, msg, sig)) << n;
    msg.push_back(static_cast<uint8_t>(n * 7));
  }
}

TEST(Random, FailingSourceYieldsEntropyErrorAndNoKey) {
  set_random_source([](uint8_t* buf, size_t n) noexcept {
    for (size_t i = 0; i < n; i++) buf[i] = 0xAA;
    return -1;
  });
  uint8_t priv[32], pub[32], sig[64];
  const Error keygen = generate_key_pair(priv, pub);
  const Error signing = sign(priv, Bytes(3, 1), sig);
  set_random_source(nullptr);
  EXPECT_EQ(keygen, Error::entropy);
  EXPECT_EQ(to_hex(priv, 32), std::string(64, '0'));
  EXPECT_EQ(signing, Error::entropy);
}

}  // namespace
}  // namespace wacore::curve

namespace wacore {
namespace {

int g_calls = 0;
uint8_t g_next = 0;
int counting_source(uint8_t* buf, size_t n) noexcept {
  g_calls++;
  for (size_t i = 0; i < n; i++) buf[i] = g_next++;
  return 0;
}

TEST(Random, PooledSourceBatchesSmallDrawsAndPassesLargeOnes) {
  g_calls = 0;
  g_next = 0;
  set_random_source(&counting_source, /*pooled=*/true);
  uint8_t a[32], b[32], big[kRandomPoolMaxDraw + 1];
  ASSERT_EQ(random_bytes(a, sizeof a), Error::ok);
  ASSERT_EQ(random_bytes(b, sizeof b), Error::ok);
  EXPECT_EQ(g_calls, 1) << "both draws from one refill";
  EXPECT_EQ(a[0], 0);
  EXPECT_EQ(b[0], 32) << "consecutive pool bytes, never reused";
  ASSERT_EQ(random_bytes(big, sizeof big), Error::ok);
  EXPECT_EQ(g_calls, 2) << "large draws bypass the pool";
  for (size_t i = 0; i < kRandomPoolBytes / 32 + 1; i++) ASSERT_EQ(random_bytes(a, sizeof a), Error::ok);
  EXPECT_EQ(g_calls, 3) << "the pool refills when empty";
  set_random_source(nullptr);
}

}  // namespace
}  // namespace wacore

namespace wacore::curve {
namespace {

// Signing reuses the Edwards public key of the last signing key: alternating keys, repeating one,
// and the fixed-randomness outputs must not depend on what signed before.
TEST(XEdDSA, SignaturesDoNotDependOnTheKeyThatSignedBefore) {
  uint8_t ka[32], kb[32], pa[32], pb[32];
  ASSERT_EQ(generate_key_pair(ka, pa), Error::ok);
  ASSERT_EQ(generate_key_pair(kb, pb), Error::ok);
  const uint8_t msg[5] = {1, 2, 3, 4, 5};
  uint8_t z[kSignatureRandomBytes] = {9};
  uint8_t first_a[64], first_b[64], sig[64];
  sign_with_random(ka, msg, z, first_a);
  sign_with_random(kb, msg, z, first_b);
  for (int round = 0; round < 4; round++) {
    sign_with_random(ka, msg, z, sig);
    EXPECT_EQ(std::memcmp(sig, first_a, 64), 0);
    EXPECT_TRUE(verify(pa, msg, sig));
    sign_with_random(ka, msg, z, sig);
    EXPECT_EQ(std::memcmp(sig, first_a, 64), 0);
    sign_with_random(kb, msg, z, sig);
    EXPECT_EQ(std::memcmp(sig, first_b, 64), 0);
    EXPECT_TRUE(verify(pb, msg, sig));
    EXPECT_FALSE(verify(pa, msg, sig));
  }
}

}  // namespace
}  // namespace wacore::curve

namespace wacore::curve {
namespace {

// Verification keeps the keys it decoded (the last eight): alternating keys and sign bits, and a key
// with no Edwards image, must give the same answers as fresh decoding.
TEST(XEdDSA, VerificationDoesNotDependOnTheKeyVerifiedBefore) {
  uint8_t ka[32], kb[32], pa[32], pb[32];
  ASSERT_EQ(generate_key_pair(ka, pa), Error::ok);
  ASSERT_EQ(generate_key_pair(kb, pb), Error::ok);
  const uint8_t msg[3] = {7, 8, 9};
  uint8_t sa[64], sb[64];
  ASSERT_EQ(sign(ka, msg, sa), Error::ok);
  ASSERT_EQ(sign(kb, msg, sb), Error::ok);
  uint8_t minus_one[32];  // u = p - 1 = -1: no Edwards image
  std::memset(minus_one, 0xFF, 32);
  minus_one[0] = 0xEC;
  minus_one[31] = 0x7F;
  uint8_t flipped_sign[64];
  std::memcpy(flipped_sign, sa, 64);
  flipped_sign[63] ^= 0x80;
  for (int round = 0; round < 3; round++) {
    EXPECT_TRUE(verify(pa, msg, sa));
    EXPECT_TRUE(verify(pa, msg, sa));
    EXPECT_FALSE(verify(pa, msg, flipped_sign));
    EXPECT_TRUE(verify(pa, msg, sa));
    EXPECT_FALSE(verify(minus_one, msg, sa));
    EXPECT_FALSE(verify(minus_one, msg, sa));
    EXPECT_TRUE(verify(pb, msg, sb));
    EXPECT_FALSE(verify(pb, msg, sa));
    EXPECT_FALSE(verify(pa, msg, sb));
  }
}

// The verifying-key cache (8 keys, least recently used replaced; the comb from a key's second
// verification): twenty keys verified in an interleaving that evicts, hits and builds combs; at every
// step the key's signature verifies, and a tampered one and another key's do not.
TEST(XEdDSA, VerificationThroughTheKeyCacheMatchesEveryOrder) {
  constexpr int kKeys = 20;
  uint8_t priv[kKeys][32], pub[kKeys][32], sig[kKeys][64], bad[kKeys][64];
  const uint8_t msg[5] = {1, 2, 3, 4, 5};
  for (int i = 0; i < kKeys; i++) {
    ASSERT_EQ(generate_key_pair(priv[i], pub[i]), Error::ok);
    ASSERT_EQ(sign(priv[i], msg, sig[i]), Error::ok);
    std::memcpy(bad[i], sig[i], 64);
    bad[i][5] ^= 0x10;
  }
  // A u whose Edwards y = (u - 1) / (u + 1) is no point's: its decoding fails, and must go on
  // failing from the cache, between hits of good keys.
  uint8_t no_point[32];
  for (;;) {
    randombytes_buf(no_point, sizeof no_point);
    no_point[31] &= 0x7F;
    fe25519 u, one, num, den;
    fe25519_frombytes(u, no_point);
    fe25519_1(one);
    fe25519_add(den, u, one);
    fe25519_sub(num, u, one);
    fe25519_invert(den, den);
    fe25519_mul(num, num, den);
    uint8_t y[32];
    fe25519_tobytes(y, num);
    ge25519_p3 point;
    if (ge25519_frombytes_negate_vartime(&point, y) != 0) break;
  }
  uint32_t state = 12345;
  for (int step = 0; step < 600; step++) {
    if (step % 7 == 0) {
      ASSERT_FALSE(verify(no_point, msg, sig[step % kKeys])) << step;
    }
    state = state * 1103515245u + 12345u;
    // Mostly the first five keys (hits, combs), sometimes any of twenty (evictions).
    const int i = (state >> 16) % (step % 3 == 0 ? kKeys : 5);
    ASSERT_TRUE(verify(pub[i], msg, sig[i])) << step;
    ASSERT_FALSE(verify(pub[i], msg, bad[i])) << step;
    ASSERT_FALSE(verify(pub[(i + 1) % kKeys], msg, sig[i])) << step;
  }
}

}  // namespace
}  // namespace wacore::curve
