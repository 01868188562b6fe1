// Noise transport: the handshake steps against values captured from a live WhatsApp server (published
// in whatsapp-rust's wacore/tests/noise_handshake_test.rs, where they were checked against whatsmeow),
// the real certificate chain under WhatsApp's root, client <-> responder, every certificate check,
// framing at every split, and state that authentication failures leave untouched.
#include "noise/noise.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "crypto/curve25519.h"
#include "noise/proto.h"
#include "test_util.h"

namespace wacore::noise {
namespace {

using test::Bytes;
using test::from_hex;
using test::to_hex;

const uint8_t kHeaderV3[kHeaderBytes] = {'W', 'A', 6, 3};

// --- live vectors (docs/protocol.md §7.1: WR noise_handshake_test.rs) -----------------------------------

const char* kClientEphPriv = "b8de0b5ebad3e7879fa659c0d27baa6c3e3f32a10f7c4cb2613cb4182fe83047";
const char* kClientEphPub = "8537e1daadfb8e9ff8491896f5733008bad4967c2ba97670f69cf3053762ea4d";
const char* kServerEphPub = "27692cf5d6a08e51f2d601f2e475378456bda16f96255c5121d081d0aa4a815d";
const char* kServerStatic = "5854d333d8e13975abd6597bbaddd49d6935ced25c93a44bd3ade508f2bec330";
const char* kEncStatic =
    "0addd1ce96c55699824fc20ef2a73928dd8168bc29ef863bdea6dc69002b00054add28f7711e3a7dff984d3f31badaa2";
const char* kEncCert =
    "c4f948e737857d6bd675fa0a84f38ed784685b784402da53f972388a8aa3398f01be799862907d43cce7a49858023ec66dc909d1ea"
    "c245f842661360804acf4975801ca0a156f876ba6004cc2f1241f761f753c516cef59fb3c6b95d39ad6d3540caa40b361bfbb7189e"
    "aa2d331e086870f2bd846bc6653cf2887387ba25268c9923dec5ecdc5ee37507680ba6906550f9991f6a60b2dc74803c6df8d6df352f"
    "206c376b0bb3d7d17dca91e3999f73d6dc6469e59281bc18c22fd1e7d85467b3f17fafc141a62c6fd92d364310d5b32493c9f2c778"
    "17aa4d901aef2538858b157d46ea247371a9c2f577171796fa7be059d975dddee115d5aa967602b02a93be36";
const char* kCertChain =
    "0a770a3308c90210031a205854d333d8e13975abd6597bbaddd49d6935ced25c93a44bd3ade508f2bec33020d08f87bf0628d0c99f"
    "c406124019cbee71b63bb8048af269f3aa7c13c62a1fd89ac4ef2509d1d78d68267f40393b49a9cc38db05e35a6c5bf3ba6172a4c5"
    "325f25f363338cf8f3535a4cd9520512760a32080310001a201c51a9ac303994c6c8d0b92ea1878a533476599cc599fbea35997d9a"
    "a90cce62208091aebe0628ffdeb7dc061240270f294648539fed4870e25054dd4e95983aba29189c2ba6c8eeda7055555f753740f5"
    "ec192ab64c26c26d6ade6d20b9f774aee37120a6b20395f53c66058507";

std::string hex(const uint8_t* p, size_t n = 32) { return to_hex(p, n); }

TEST(NoiseSymmetric, PrologueHashMatchesPublishedVector) {
  SymmetricState ss;
  ss.init(kHeaderV3);
  EXPECT_EQ(hex(ss.h), "ffff0c9267310966f1311170c04b38c79504285bf5edf763e5c946492a50a755");
  EXPECT_EQ(hex(ss.ck), to_hex(kProtocolName, 32));  // ck is the name itself, not hashed
}

TEST(NoiseSymmetric, ReproducesEveryStepOfALiveServerHello) {
  const Bytes e_priv = from_hex(kClientEphPriv);
  uint8_t e_pub[32];
  ASSERT_EQ(curve::public_from_private(e_priv.data(), e_pub), Error::ok);
  EXPECT_EQ(hex(e_pub), kClientEphPub);

  SymmetricState ss;
  ss.init(kHeaderV3);
  ss.authenticate(from_hex(kClientEphPub));
  EXPECT_EQ(hex(ss.h), "86790a969b7100866dfbf74fcfe5a175f8adff7f8c5139f74cd2f14a8fa5f11f");
  const Bytes se = from_hex(kServerEphPub);
  ss.authenticate(se);
  EXPECT_EQ(hex(ss.h), "9fd7bf2736e1e5b48b2759fd5806225ccb6822d557579d725459795cdd0885d3");
  uint8_t shared[32];
  ASSERT_EQ(curve::agreement(se.data(), e_priv.data(), shared), Error::ok);
  ss.mix_key({shared, 32});
  EXPECT_EQ(hex(ss.ck), "a505e995a2068e7103a582be6f6ba9d6b447a80db4e679209b2f7cc6da633709");

  uint8_t server_static[32];
  ASSERT_EQ(ss.decrypt(from_hex(kEncStatic), server_static), Error::ok);
  EXPECT_EQ(hex(server_static), kServerStatic);
  EXPECT_EQ(hex(ss.h), "8f29e8901b6ffb3cb393795c023d6d219ceb447dbbbae075533010907cbfbc6c");
  ASSERT_EQ(curve::agreement(server_static, e_priv.data(), shared), Error::ok);
  ss.mix_key({shared, 32});
  EXPECT_EQ(hex(ss.ck), "5092572187a71abe8044010b9c8419633272b45b2babf4ca316966edc3eb9bde");
  EXPECT_EQ(ss.counter, 0u);

  const Bytes enc_cert = from_hex(kEncCert);
  Bytes cert(enc_cert.size() - 16);
  ASSERT_EQ(ss.decrypt(enc_cert, cert.data()), Error::ok);
  EXPECT_EQ(to_hex(cert), kCertChain);
  EXPECT_EQ(hex(ss.h), "4a82b448599eb44f85bacedaff0a81820999a87be156b08989c2857b8651d4d2");
}

TEST(NoiseSymmetric, FailedDecryptLeavesHashKeyAndCounterAsTheyWere) {
  SymmetricState ss;
  ss.init(kHeaderV3);
  ss.mix_key(from_hex(kServerStatic));
  Bytes ct(20 + 16);
  ASSERT_EQ(ss.encrypt({ct.data(), 20}, ct.data()), Error::ok);
  SymmetricState before = ss;
  ct[3] ^= 1;
  uint8_t out[20];
  EXPECT_EQ(ss.decrypt(ct, out), Error::auth_tag);
  EXPECT_EQ(std::memcmp(&before, &ss, sizeof ss), 0);
  EXPECT_EQ(ss.decrypt({ct.data(), 15}, out), Error::data_length);
  SymmetricState keyless;
  keyless.init(kHeaderV3);
  EXPECT_EQ(keyless.encrypt({}, out), Error::noise_state);
}

// --- certificates ----------------------------------------------------------------------------------------

TEST(NoiseCert, LiveChainVerifiesUnderWhatsAppsRoot) {
  const Bytes chain = from_hex(kCertChain);
  proto::CertChain c;
  ASSERT_EQ(proto::parse_cert_chain(chain, c), Error::ok);
  proto::Details leaf, inter;
  ASSERT_EQ(proto::parse_details(c.leaf.details, leaf), Error::ok);
  ASSERT_EQ(proto::parse_details(c.intermediate.details, inter), Error::ok);
  EXPECT_EQ(inter.issuer_serial, 0u);
  EXPECT_EQ(leaf.issuer_serial, inter.serial);
  const uint64_t now = leaf.not_before + 1;
  const Bytes server_static = from_hex(kServerStatic);
  EXPECT_EQ(verify_cert_chain(chain, server_static.data(), kWhatsAppRootKey, now), Error::ok);
  EXPECT_EQ(verify_cert_chain(chain, server_static.data(), kWhatsAppRootKey, leaf.not_after + 1),
            Error::noise_cert_time);
  Bytes other_static = server_static;
  other_static[0] ^= 1;
  EXPECT_EQ(verify_cert_chain(chain, other_static.data(), kWhatsAppRootKey, now), Error::noise_cert_key);
}

struct Keys {
  uint8_t priv[32], pub[32];
  Keys() { EXPECT_EQ(curve::generate_key_pair(priv, pub), Error::ok); }
};

// A chain from explicit details, so every field can be wrong while the signatures stay valid.
Bytes chain_of(const proto::Details& inter, const uint8_t* inter_signer, const proto::Details& leaf,
               const uint8_t* leaf_signer) {
  Bytes inter_bytes, leaf_bytes, out;
  EXPECT_EQ(proto::write_details(inter, inter_bytes), Error::ok);
  EXPECT_EQ(proto::write_details(leaf, leaf_bytes), Error::ok);
  uint8_t inter_sig[64], leaf_sig[64];
  EXPECT_EQ(curve::sign(inter_signer, inter_bytes, inter_sig), Error::ok);
  EXPECT_EQ(curve::sign(leaf_signer, leaf_bytes, leaf_sig), Error::ok);
  EXPECT_EQ(proto::write_cert_chain({{leaf_bytes, {leaf_sig, 64}}, {inter_bytes, {inter_sig, 64}}}, out), Error::ok);
  return out;
}

TEST(NoiseCert, EveryCheckFailsOnItsOwnTamperedField) {
  Keys root, inter_key, server, stranger;
  const proto::Details inter{7, 0, {inter_key.pub, 32}, 1000, 2000};
  const proto::Details leaf{99, 7, {server.pub, 32}, 1100, 1900};
  auto check = [&](const Bytes& chain, uint64_t now = 1500) {
    return verify_cert_chain(chain, server.pub, root.pub, now);
  };
  EXPECT_EQ(check(chain_of(inter, root.priv, leaf, inter_key.priv)), Error::ok);

  // make_cert_chain builds the same shape.
  Bytes made;
  ASSERT_EQ(make_cert_chain({7, 99, 1000, 2000}, root.priv, inter_key.priv, server.pub, made), Error::ok);
  EXPECT_EQ(check(made), Error::ok);

  // Signatures: the intermediate not signed by the root, the leaf not signed by the intermediate.
  EXPECT_EQ(check(chain_of(inter, stranger.priv, leaf, inter_key.priv)), Error::noise_cert_signature);
  EXPECT_EQ(check(chain_of(inter, root.priv, leaf, stranger.priv)), Error::noise_cert_signature);
  EXPECT_EQ(check(chain_of(inter, root.priv, leaf, root.priv)), Error::noise_cert_signature);
  EXPECT_EQ(verify_cert_chain(made, server.pub, stranger.pub, 1500), Error::noise_cert_signature);
  // Serials.
  proto::Details t = inter;
  t.issuer_serial = 1;
  EXPECT_EQ(check(chain_of(t, root.priv, leaf, inter_key.priv)), Error::noise_cert_serial);
  t = leaf;
  t.issuer_serial = 8;
  EXPECT_EQ(check(chain_of(inter, root.priv, t, inter_key.priv)), Error::noise_cert_serial);
  // Keys: the leaf names another key, or a key of the wrong length; the intermediate key is short.
  t = leaf;
  t.key = {stranger.pub, 32};
  EXPECT_EQ(check(chain_of(inter, root.priv, t, inter_key.priv)), Error::noise_cert_key);
  t.key = {server.pub, 31};
  EXPECT_EQ(check(chain_of(inter, root.priv, t, inter_key.priv)), Error::noise_cert_key);
  t = inter;
  t.key = {inter_key.pub, 31};
  EXPECT_EQ(check(chain_of(t, root.priv, leaf, inter_key.priv)), Error::noise_cert);
  // Times: each bound of each certificate.
  const Bytes good = chain_of(inter, root.priv, leaf, inter_key.priv);
  EXPECT_EQ(check(good, 1099), Error::noise_cert_time);  // before the leaf
  EXPECT_EQ(check(good, 1901), Error::noise_cert_time);  // after the leaf
  EXPECT_EQ(check(good, 1100), Error::ok);
  EXPECT_EQ(check(good, 1900), Error::ok);
  t = inter;
  t.not_before = 1200;
  EXPECT_EQ(check(chain_of(t, root.priv, leaf, inter_key.priv), 1150), Error::noise_cert_time);
  t = inter;
  t.not_after = 1300;
  EXPECT_EQ(check(chain_of(t, root.priv, leaf, inter_key.priv), 1350), Error::noise_cert_time);
  // Every single bit flipped anywhere in the chain is caught (by the parser or a check).
  for (size_t i = 0; i < good.size(); i++) {
    Bytes bad = good;
    bad[i] ^= 0x10;
    EXPECT_NE(check(bad), Error::ok) << "byte " << i;
  }
  // Malformed: truncated at every length, garbage, a missing certificate.
  for (size_t n = 0; n < good.size(); n++) {
    EXPECT_NE(check(Bytes(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n))), Error::ok) << n;
  }
  EXPECT_EQ(check(from_hex("0aff")), Error::noise_cert);
  EXPECT_EQ(check(from_hex("0a00")), Error::noise_cert);  // only an empty leaf
}

// --- full handshake ------------------------------------------------------------------------------------

struct Pair {
  Connection client, server;
  Keys root, inter, server_static, client_static;
  Bytes chain, client_payload, received_payload;
  uint8_t received_static[32];
};

// Runs the whole handshake through the byte-level API, feeding the peer one chunk each time.
void handshake(Pair& p, uint8_t dict = 3, Bytes routing = {}) {
  ASSERT_EQ(make_cert_chain({3, 329, 1000, 5000}, p.root.priv, p.inter.priv, p.server_static.pub, p.chain), Error::ok);
  ASSERT_EQ(p.client.init(Connection::Role::client, dict, routing, nullptr), Error::ok);
  ASSERT_EQ(p.server.init(Connection::Role::responder, dict, {}, nullptr), Error::ok);
  Bytes hello, server_hello, finish;
  bool done = false;
  ASSERT_EQ(p.client.client_start(hello), Error::ok);
  ASSERT_EQ(p.server.responder_read_client_hello(hello, p.server_static.priv, p.chain, server_hello, done), Error::ok);
  ASSERT_TRUE(done);
  p.client_payload = from_hex("0a0568656c6c6f");
  ClientOptions opts{p.root.pub, 2000};
  ASSERT_EQ(p.client.client_read_server_hello(server_hello, p.client_static.priv, p.client_payload, opts, finish, done),
            Error::ok);
  ASSERT_TRUE(done);
  ASSERT_EQ(p.server.responder_read_client_finish(finish, p.received_static, p.received_payload, done), Error::ok);
  ASSERT_TRUE(done);
  EXPECT_EQ(std::memcmp(p.client.handshake_hash(), p.server.handshake_hash(), 32), 0);
  ASSERT_EQ(p.client.finish(), Error::ok);
  ASSERT_EQ(p.server.finish(), Error::ok);
}

Bytes decrypt_all(Connection& c, const Bytes& chunk, size_t& count, Error& e) {
  Bytes out;
  e = c.decrypt_frames(chunk, out, count);
  return out;
}

// The payloads of a decrypt_frames output (length-prefixed) concatenated with '|'.
std::string payloads(const Bytes& out) {
  std::string s;
  for (size_t i = 0; i < out.size();) {
    const size_t n = out[i] | out[i + 1] << 8 | out[i + 2] << 16 | size_t{out[i + 3]} << 24;
    if (!s.empty()) s += '|';
    s.append(reinterpret_cast<const char*>(out.data() + i + 4), n);
    i += 4 + n;
  }
  return s;
}

Bytes text(const std::string& s) { return Bytes(s.begin(), s.end()); }

TEST(NoiseHandshake, ClientAndResponderAgreeAndExchangeFramesBothWays) {
  Pair p;
  handshake(p);
  EXPECT_EQ(std::memcmp(p.received_static, p.client_static.pub, 32), 0);
  EXPECT_EQ(p.received_payload, p.client_payload);

  Bytes wire;
  ASSERT_EQ(p.client.encrypt_frame(text("ping"), wire), Error::ok);
  ASSERT_EQ(p.client.encrypt_frame(text(""), wire), Error::ok);
  ASSERT_EQ(p.client.encrypt_frame(text("second"), wire), Error::ok);
  size_t count = 0;
  Error e;
  Bytes got = decrypt_all(p.server, wire, count, e);
  ASSERT_EQ(e, Error::ok);
  EXPECT_EQ(count, 3u);
  EXPECT_EQ(payloads(got), "ping||second");
  Bytes back;
  ASSERT_EQ(p.server.encrypt_frame(text("pong"), back), Error::ok);
  got = decrypt_all(p.client, back, count, e);
  ASSERT_EQ(e, Error::ok);
  EXPECT_EQ(payloads(got), "pong");
  EXPECT_EQ(p.client.write_counter(), 3u);
  EXPECT_EQ(p.server.read_counter(), 3u);
  EXPECT_EQ(p.server.write_counter(), 1u);
  EXPECT_EQ(p.client.read_counter(), 1u);
}

TEST(NoiseHandshake, RoutingPreHeaderAndDictionaryTwo) {
  Pair p;
  handshake(p, 2, text("routing-info"));
  Bytes wire;
  ASSERT_EQ(p.client.encrypt_frame(text("x"), wire), Error::ok);
  size_t count = 0;
  Error e;
  EXPECT_EQ(payloads(decrypt_all(p.server, wire, count, e)), "x");
}

TEST(NoiseHandshake, IntroIsSentOnceWithThePreHeaderOutsideThePrologue) {
  Connection c;
  ASSERT_EQ(c.init(Connection::Role::client, 3, text("ab"), from_hex(kClientEphPriv).data()), Error::ok);
  Bytes out;
  ASSERT_EQ(c.client_start(out), Error::ok);
  // ED 00 01, length 2, "ab", WA 06 03, then a frame holding clientHello{ephemeral}.
  EXPECT_EQ(to_hex(Bytes(out.begin(), out.begin() + 16)), "45440001000002616257410603000024");
  EXPECT_EQ(to_hex(Bytes(out.begin() + 16, out.end())), std::string("12220a20") + kClientEphPub);
  // The prologue is the 4-byte header only: h matches the live vector after the ephemeral.
  EXPECT_EQ(hex(c.handshake_hash()), "86790a969b7100866dfbf74fcfe5a175f8adff7f8c5139f74cd2f14a8fa5f11f");
  EXPECT_EQ(c.client_start(out), Error::noise_state);
}

TEST(NoiseHandshake, ClientRejectsAServerWhoseChainDoesNotVerify) {
  Pair p;
  Keys other_root;
  ASSERT_EQ(make_cert_chain({3, 329, 1000, 5000}, other_root.priv, p.inter.priv, p.server_static.pub, p.chain),
            Error::ok);
  ASSERT_EQ(p.client.init(Connection::Role::client, 3, {}, nullptr), Error::ok);
  ASSERT_EQ(p.server.init(Connection::Role::responder, 3, {}, nullptr), Error::ok);
  Bytes hello, server_hello, finish;
  bool done = false;
  ASSERT_EQ(p.client.client_start(hello), Error::ok);
  ASSERT_EQ(p.server.responder_read_client_hello(hello, p.server_static.priv, p.chain, server_hello, done), Error::ok);
  ClientOptions opts{p.root.pub, 2000};
  EXPECT_EQ(p.client.client_read_server_hello(server_hello, p.client_static.priv, {}, opts, finish, done),
            Error::noise_cert_signature);
  EXPECT_TRUE(finish.empty());
  // Failure is final.
  EXPECT_EQ(p.client.client_read_server_hello({}, p.client_static.priv, {}, opts, finish, done), Error::noise_state);
  EXPECT_EQ(p.client.finish(), Error::noise_state);
}

TEST(NoiseHandshake, ResponderRejectsWrongHeaderAndMalformedMessages) {
  Keys s;
  Connection r;
  Bytes out;
  bool done = false;
  ASSERT_EQ(r.init(Connection::Role::responder, 3, {}, nullptr), Error::ok);
  EXPECT_EQ(r.responder_read_client_hello(from_hex("57410602000000"), s.priv, {}, out, done), Error::noise_header);
  ASSERT_EQ(r.init(Connection::Role::responder, 3, {}, nullptr), Error::ok);
  EXPECT_EQ(r.responder_read_client_hello(from_hex("5741060300000312010a"), s.priv, {}, out, done),
            Error::noise_message);
  ASSERT_EQ(r.init(Connection::Role::responder, 3, {}, nullptr), Error::ok);
  // clientHello with a 31-byte ephemeral.
  Bytes msg = from_hex("5741060300002312210a1f");
  msg.resize(msg.size() + 31, 9);
  EXPECT_EQ(r.responder_read_client_hello(msg, s.priv, {}, out, done), Error::noise_message);
  // Partial intro and frame: nothing happens until the rest arrives.
  Connection c;
  ASSERT_EQ(r.init(Connection::Role::responder, 3, {}, nullptr), Error::ok);
  ASSERT_EQ(c.init(Connection::Role::client, 3, {}, nullptr), Error::ok);
  Bytes hello;
  ASSERT_EQ(c.client_start(hello), Error::ok);
  for (size_t i = 0; i < hello.size(); i++) {
    ASSERT_EQ(r.responder_read_client_hello({hello.data() + i, 1}, s.priv, {}, out, done), Error::ok);
    EXPECT_EQ(done, i + 1 == hello.size());
  }
  Connection bad;
  EXPECT_EQ(bad.init(Connection::Role::client, 4, {}, nullptr), Error::noise_header);
}

// --- transport framing -------------------------------------------------------------------------------------

TEST(NoiseTransport, FramesSplitAtEveryByteBoundaryDecodeTheSame) {
  Pair p;
  handshake(p);
  Bytes wire;
  for (const char* m : {"first", "", "a somewhat longer third frame, past one AES block"}) {
    ASSERT_EQ(p.client.encrypt_frame(text(m), wire), Error::ok);
  }
  const std::string want = "first||a somewhat longer third frame, past one AES block";
  for (size_t cut = 0; cut <= wire.size(); cut++) {
    Connection r = p.server;  // a fresh copy of the receiver for each split
    size_t n1 = 0, n2 = 0;
    Error e1, e2;
    Bytes a = decrypt_all(r, Bytes(wire.begin(), wire.begin() + static_cast<std::ptrdiff_t>(cut)), n1, e1);
    Bytes b = decrypt_all(r, Bytes(wire.begin() + static_cast<std::ptrdiff_t>(cut), wire.end()), n2, e2);
    ASSERT_EQ(e1, Error::ok);
    ASSERT_EQ(e2, Error::ok);
    a.insert(a.end(), b.begin(), b.end());
    EXPECT_EQ(n1 + n2, 3u) << cut;
    EXPECT_EQ(payloads(a), want) << cut;
    EXPECT_EQ(r.buffered(), 0u);
  }
  // One byte at a time.
  Connection r = p.server;
  Bytes all;
  size_t total = 0;
  for (uint8_t byte : wire) {
    size_t n = 0;
    Error e;
    Bytes out = decrypt_all(r, {byte}, n, e);
    ASSERT_EQ(e, Error::ok);
    total += n;
    all.insert(all.end(), out.begin(), out.end());
  }
  EXPECT_EQ(total, 3u);
  EXPECT_EQ(payloads(all), want);
}

TEST(NoiseTransport, TamperedFrameIsDroppedWithoutAdvancingAndTheNextGenuineFrameDecodes) {
  Pair p;
  handshake(p);
  Bytes f1, f2, f3;
  ASSERT_EQ(p.client.encrypt_frame(text("one"), f1), Error::ok);
  ASSERT_EQ(p.client.encrypt_frame(text("two"), f2), Error::ok);
  ASSERT_EQ(p.client.encrypt_frame(text("three"), f3), Error::ok);
  size_t count = 0;
  Error e;
  EXPECT_EQ(payloads(decrypt_all(p.server, f1, count, e)), "one");
  // Every byte of the second frame's ciphertext and tag, flipped: rejected, counter unchanged.
  for (size_t i = 3; i < f2.size(); i++) {
    Bytes bad = f2;
    bad[i] ^= 0x80;
    Bytes out = decrypt_all(p.server, bad, count, e);
    EXPECT_EQ(e, Error::auth_tag) << i;
    EXPECT_TRUE(out.empty());
    EXPECT_EQ(p.server.read_counter(), 1u);
    EXPECT_EQ(p.server.buffered(), 0u);
  }
  // A forged frame followed by the genuine ones in one chunk: the forgery stops the call, the rest
  // stays buffered and decodes on the next call.
  Bytes chunk = f2;
  chunk[5] ^= 1;
  chunk.insert(chunk.end(), f2.begin(), f2.end());
  chunk.insert(chunk.end(), f3.begin(), f3.end());
  Bytes out = decrypt_all(p.server, chunk, count, e);
  EXPECT_EQ(e, Error::auth_tag);
  EXPECT_EQ(count, 0u);
  EXPECT_EQ(p.server.buffered(), f2.size() + f3.size());
  out = decrypt_all(p.server, {}, count, e);
  ASSERT_EQ(e, Error::ok);
  EXPECT_EQ(payloads(out), "two|three");
  EXPECT_EQ(p.server.read_counter(), 3u);
  // A replayed frame does not authenticate under the next counter.
  decrypt_all(p.server, f3, count, e);
  EXPECT_EQ(e, Error::auth_tag);
  // Frames shorter than a tag are rejected the same way.
  decrypt_all(p.server, from_hex("0000050102030405"), count, e);
  EXPECT_EQ(e, Error::data_length);
  EXPECT_EQ(p.server.read_counter(), 3u);
}

TEST(NoiseTransport, LimitsCountersAndOrder) {
  Connection fresh;
  ASSERT_EQ(fresh.init(Connection::Role::client, 3, {}, nullptr), Error::ok);
  Bytes out;
  size_t count = 0;
  EXPECT_EQ(fresh.encrypt_frame(text("x"), out), Error::noise_state);
  EXPECT_EQ(fresh.decrypt_frames({}, out, count), Error::noise_state);
  EXPECT_EQ(fresh.finish(), Error::noise_state);

  // A frame longer than the configured maximum stops the stream for good.
  Pair p;
  handshake(p);
  Connection small = p.server;
  FrameReader reader(100);
  reader.feed(from_hex("000065"));
  std::span<const uint8_t> frame;
  bool have = true;
  EXPECT_EQ(reader.next(frame, have), Error::noise_frame_too_large);
  EXPECT_FALSE(have);
  reader.feed(from_hex("00"));
  EXPECT_EQ(reader.next(frame, have), Error::noise_frame_too_large);
  FrameReader exact(100);
  exact.feed(from_hex("000064"));
  exact.feed(Bytes(100, 1));
  ASSERT_EQ(exact.next(frame, have), Error::ok);
  EXPECT_TRUE(have);
  EXPECT_EQ(frame.size(), 100u);

  uint8_t hdr[3];
  EXPECT_EQ(frame_header(kMaxFrameBytes, hdr), Error::ok);
  EXPECT_EQ(to_hex(hdr, 3), "ffffff");
  EXPECT_EQ(frame_header(kMaxFrameBytes + 1, hdr), Error::noise_frame_too_large);
  Bytes huge(kMaxFrameBytes - 15);
  EXPECT_EQ(small.encrypt_frame(huge, out), Error::noise_frame_too_large);

  // Counters: 2^32 nonces per key, then an error instead of a repeated nonce.
  CipherState cs{};
  cs.counter = kMaxCounter - 1;
  uint8_t ct[16];
  EXPECT_EQ(cs.encrypt({}, ct), Error::ok);
  EXPECT_EQ(cs.encrypt({}, ct), Error::noise_counter);
  uint8_t iv[12];
  nonce(0x01020304, iv);
  EXPECT_EQ(to_hex(iv, 12), "000000000000000001020304");
}

}  // namespace
}  // namespace wacore::noise
