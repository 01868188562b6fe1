// Constant-time check, run under valgrind memcheck (see src/common/ct.h): keys and plaintexts are
// marked undefined, then AES (the 64-bit form and the portable form of the SIMD code), GHASH, CBC
// with its padding check, GCM with its tag comparison, CTR, HMAC-SHA256 pairs and HKDF (libsodium's
// SHA-256 under the core's keyed states), and the Curve25519 operations built on
// our fixed-base multiplication and ladder (X25519 public keys and agreement, XEdDSA signing), the
// divstep field inversion, and the records' base64 run on them. memcheck reports any
// branch or memory index that depends on the marked bytes; the test passes when it reports nothing.
//
//   ct_test            the real check (must pass)
//   ct_test --control  a deliberately leaky table lookup on a secret (must be reported: proves that
//                      the harness can fail)
#include <cstdio>
#include <cstring>
#include <random>
#include <string_view>
#include <vector>

#include "common/base64.h"
#include "common/ct.h"
#include "crypto/aes.h"
#include "crypto/aes_byteslice.h"
#include "crypto/aes_modes.h"
#include "crypto/curve25519.h"
#include "crypto/fe_invert.h"
#include "crypto/ghash.h"
#include "crypto/hash.h"

namespace {

using Bytes = std::vector<uint8_t>;

Bytes filled(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  Bytes b(n);
  for (auto& x : b) x = static_cast<uint8_t>(rng());
  return b;
}

template <typename T>
void secret(T& buf) {
  WACORE_CT_SECRET(buf.data(), buf.size());
}

// Keeps results alive without inspecting them (inspecting would branch on secret-derived bytes).
volatile uint8_t g_sink;
void consume(const Bytes& b) {
  WACORE_CT_PUBLIC(b.data(), b.size());
  for (uint8_t x : b) g_sink = static_cast<uint8_t>(g_sink ^ x);
}

int run_checks() {
  namespace aes = wacore::aes;
  Bytes key = filled(32, 1), iv = filled(16, 2), nonce = filled(12, 3), msg = filled(1000, 4);
  secret(key);
  secret(msg);

  aes::Key k;
  aes::expand_key(k, key.data());
  Bytes out(msg.size() / 16 * 16 + 16 * 8);
  aes::detail::encrypt_blocks_u64(k, msg.data(), out.data(), 37);
  aes::detail::decrypt_blocks_u64(k, out.data(), out.data(), 37);
  aes::detail::encrypt_blocks_pair(k, msg.data(), out.data(), 37);
  aes::detail::decrypt_blocks_pair(k, out.data(), out.data(), 37);
  aes::encrypt_blocks(k, msg.data(), out.data(), 40);
  aes::wipe(k);
  // The byte-sliced one-block form the SIMD build encrypts CBC with, in its portable twin.
  aes::byteslice::Key bk;
  aes::byteslice::detail::expand_key_portable(bk, key.data());
  uint8_t chain[16] = {};
  aes::byteslice::detail::cbc_encrypt_blocks_portable(bk, chain, msg.data(), out.data(), 37);
  aes::byteslice::wipe(bk);
  consume(out);

  wacore::ghash::State g;
  Bytes h = filled(16, 5);
  secret(h);
  wacore::ghash::init(g, h.data());
  wacore::ghash::update(g, msg.data(), msg.size());
  Bytes digest(16);
  wacore::ghash::digest(g, digest.data());
  consume(digest);

  Bytes ctr(msg.size());
  aes::ctr(key.data(), iv.data(), msg.data(), ctr.data(), msg.size());
  consume(ctr);

  // CBC: encrypt the secret message, then decrypt it with its (secret) padding check.
  Bytes cbc(aes::cbc_encrypted_size(msg.size()));
  aes::cbc_encrypt(key.data(), iv.data(), msg.data(), msg.size(), cbc.data());
  secret(cbc);
  Bytes plain(cbc.size());
  size_t n = 0;
  const wacore::Error cbc_e = aes::cbc_decrypt(key.data(), iv.data(), cbc.data(), cbc.size(), plain.data(), &n);
  consume(plain);
  // A block with bad padding goes through the same check.
  cbc.back() ^= 1;
  secret(cbc);
  aes::cbc_decrypt(key.data(), iv.data(), cbc.data(), cbc.size(), plain.data(), &n);

  // GCM: seal, then open (tag comparison on secret-derived bytes), then open a forgery.
  Bytes sealed(msg.size() + 16);
  aes::gcm_seal(key.data(), nonce, {}, msg.data(), msg.size(), sealed.data());
  secret(sealed);
  Bytes opened(msg.size());
  const wacore::Error gcm_e = aes::gcm_open(key.data(), nonce, {}, sealed.data(), sealed.size(), opened.data());
  consume(opened);
  sealed[5] ^= 1;
  secret(sealed);
  aes::gcm_open(key.data(), nonce, {}, sealed.data(), sealed.size(), opened.data());

  // HMAC-SHA256 of two messages under one secret key (the Signal chain step), and HKDF of a secret
  // input with the empty salt's kept state and with a secret salt (the ratchet's root key).
  Bytes chain_key = filled(32, 10), msg_seed(32), next_key(32), okm(80);
  secret(chain_key);
  wacore::hash::hmac_sha256_pair(chain_key, Bytes{1}, msg_seed.data(), Bytes{2}, next_key.data());
  consume(msg_seed);
  consume(next_key);
  wacore::hash::hkdf(chain_key, {}, {}, okm);
  consume(okm);
  Bytes salt = filled(32, 11);
  secret(salt);
  wacore::hash::hkdf(chain_key, salt, {}, okm);
  consume(okm);

  Bytes a = filled(32, 6), b = a;
  secret(a);
  secret(b);
  const bool same = wacore::ct::declassify(wacore::hash::equal(a.data(), b.data(), a.size()));

  // Curve25519 on a secret private key: its public key (fixed-base multiplication, then the
  // Montgomery form) and an XEdDSA signature (two fixed-base multiplications, scalar arithmetic).
  Bytes priv = filled(32, 8), z = filled(64, 9);
  wacore::curve::clamp(priv.data());
  secret(priv);
  secret(z);
  Bytes pub(32), sig(64);
  wacore::curve::public_from_private(priv.data(), pub.data());
  consume(pub);
  wacore::curve::sign_with_random(priv.data(), msg, z.data(), sig.data());
  consume(sig);
  Bytes peer = filled(32, 10), shared(32);
  wacore::curve::agreement(peer.data(), priv.data(), shared.data());  // the Montgomery ladder
  consume(shared);
  // The field inversion those three end with, on its own: a secret element, and secret zero.
  for (uint32_t seed : {11u, 0u}) {
    Bytes element = seed ? filled(32, seed) : Bytes(32, 0);
    element[31] &= 0x7f;
    secret(element);
    fe25519 fe;
    fe25519_frombytes(fe, element.data());
    wacore::curve::invert(fe, fe);
    Bytes inverse(32);
    fe25519_tobytes(inverse.data(), fe);
    consume(inverse);
  }

  // Base64 of a secret record field (the JSON record forms), both directions. Only the answer of
  // decode (valid or not) is declassified.
  std::array<uint8_t, 33> field;
  for (size_t i = 0; i < field.size(); i++) field[i] = static_cast<uint8_t>(i * 37 + 11);
  WACORE_CT_SECRET(field.data(), field.size());
  char text[wacore::base64::kPadded<33> + 1];
  wacore::base64::encode(field, text);
  std::array<uint8_t, 33> back;
  const bool decoded = wacore::ct::declassify(wacore::base64::decode(text, wacore::base64::kPadded<33>, back));
  consume(Bytes(back.begin(), back.end()));

  const bool ok = wacore::ct::declassify(cbc_e == wacore::Error::ok) && wacore::ct::declassify(gcm_e == wacore::Error::ok) && same && decoded;
  std::puts(ok ? "constant-time checks ran: AES (u64, pair), GHASH, CTR, CBC padding, GCM tag, equal, X25519 public key and agreement, XEdDSA sign, field inversion, base64 both ways"
               : "functional failure in the constant-time run");
  return ok ? 0 : 1;
}

// The negative control: a secret-indexed table load and a secret-dependent branch.
int run_control() {
  static const uint8_t table[256] = {1, 2, 3};
  Bytes s = filled(4, 7);
  secret(s);
  volatile uint8_t v = table[s[0]];
  if (s[1] > 128) v = static_cast<uint8_t>(v + 1);
  g_sink = v;
  std::puts("control ran (valgrind must report it)");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "--control") return run_control();
  return run_checks();
}
