// The glue the JS side calls: marshalling only, no logic. Per-operation entry points are plain wasm
// exports, declared in bindings/boundary.json ("plain") and generated into
// bindings/generated/exports.cpp, which call the family functions below; embind registers the
// module-level ones (bottom of this file). Every function takes addresses in the module's one I/O
// buffer (the JS side copies inputs in, calls, and copies outputs out), plus lengths, and returns
// what its declared return kind says (an Error, a Value, ...); the export turns a failure into
// -Error, which the generated JS function raises as a WacoreError.
#include <emscripten.h>
#include <emscripten/bind.h>
#include <malloc.h>
#include <sodium.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "appstate/appstate.h"
#include "binary/codec.h"
#include "binary/tape.h"
#include "common/error.h"
#include "common/random.h"
#include "crypto/aes_modes.h"
#include "crypto/curve25519.h"
#include "crypto/hash.h"
#include "media/media.h"
#include "signal/registration.h"
#include "generated/boundary.h"
#include "guard.h"

namespace {

using wacore::Error;

// Fills [p, p + n) from crypto.getRandomValues in as few JS calls as its 65,536-byte cap allows.
// Returns 0, or -1 if no secure source exists (the loader checks for one before instantiating).
// clang-format off
EM_JS(int, wacore_js_fill_random, (uint8_t * p, size_t n), {
  try {
    p >>>= 0;
    for (var off = 0; off < n; off += 65536) {
      crypto.getRandomValues(HEAPU8.subarray(p + off, p + off + Math.min(n - off, 65536)));
    }
    return 0;
  } catch (e) {
    return -1;
  }
});
// clang-format on

int js_random(uint8_t* buf, size_t n) noexcept { return wacore_js_fill_random(buf, n); }

// The I/O buffer: grows to the largest request seen and is then reused, so steady-state calls never
// allocate. The JS side wipes the part that held secrets after each call.
uint8_t* g_io = nullptr;
size_t g_io_size = 0;

// Returns the buffer's address once it holds at least n bytes, or 0 if memory cannot grow. It grows
// by half again what is asked, so a run of slowly rising sizes reallocates rarely; the headroom is
// clamped so that the size never wraps, and dropped when only the exact size fits.
uintptr_t io_buffer(size_t n) {
  if (n > g_io_size) {
    size_t want = 4096;
    if (n > want) want = n + std::min(n / 2, SIZE_MAX - n);
    auto* p = static_cast<uint8_t*>(std::malloc(want));
    if (p == nullptr && want > n) {
      want = n;
      p = static_cast<uint8_t*>(std::malloc(want));
    }
    if (p == nullptr) return 0;
    if (g_io != nullptr) {
      sodium_memzero(g_io, g_io_size);
      std::free(g_io);
    }
    g_io = p;
    g_io_size = want;
  }
  return reinterpret_cast<uintptr_t>(g_io);
}

using wacore::bindings::at;
using wacore::bindings::bytes;

// No sodium_init(): in this build it would only detect CPU features and pick implementations (wasm
// has one of each, already the static defaults), and draw the canary of libsodium's guarded
// allocator, which nothing here uses. That draw would load the host's crypto module at start-up
// (~13 M instructions in Node); randomness is first drawn, and paid for, when a key is made. The
// core draws only through js_random; libsodium's own randombytes (one Module.getRandomValue call
// per byte under Emscripten) is never reached.
int init() {
  wacore::set_random_source(&js_random, /*pooled=*/true);
  return 0;
}

// Bytes currently allocated by malloc (for the memory-stability tests).
size_t heap_in_use() { return mallinfo().uordblks; }

}  // namespace

// The plain exports' family functions (bindings/boundary.json, "plain"): the generated exports in
// bindings/generated/exports.cpp call them and turn what they return into the one convention.
namespace wacore::bindings::plain {

// --- curve ---------------------------------------------------------------------------------------

// out: private key (PRIVATE_KEY_BYTES) then public u.
Error curve_generate_key_pair(uintptr_t out) {
  return wacore::curve::generate_key_pair(at(out), at(out + wire::kPrivateKeyBytes));
}

Error curve_public_from_private(uintptr_t priv, size_t priv_len, uintptr_t out) {
  if (priv_len != wacore::curve::kPrivateKeyBytes) return Error::key_length;
  return wacore::curve::public_from_private(at(priv), at(out));
}

Error curve_agreement(uintptr_t pub, size_t pub_len, uintptr_t priv, size_t priv_len, uintptr_t out) {
  uint8_t u[wacore::curve::kKeyBytes];
  if (Error e = wacore::curve::parse_public_key(bytes(pub, pub_len), u); e != Error::ok) return e;
  if (priv_len != wacore::curve::kPrivateKeyBytes) return Error::key_length;
  return wacore::curve::agreement(u, at(priv), at(out));
}

Error curve_sign(uintptr_t priv, size_t priv_len, uintptr_t msg, size_t msg_len, uintptr_t out) {
  if (priv_len != wacore::curve::kPrivateKeyBytes) return Error::key_length;
  return wacore::curve::sign(at(priv), bytes(msg, msg_len), at(out));
}

Error curve_sign_with_random(uintptr_t priv, size_t priv_len, uintptr_t msg, size_t msg_len, uintptr_t random,
                             size_t random_len, uintptr_t out) {
  if (priv_len != wacore::curve::kPrivateKeyBytes) return Error::key_length;
  if (random_len != wacore::curve::kSignatureRandomBytes) return Error::random_length;
  wacore::curve::sign_with_random(at(priv), bytes(msg, msg_len), at(random), at(out));
  return Error::ok;
}

// 1 for a valid signature, 0 for an invalid one.
wire::Value curve_verify(uintptr_t pub, size_t pub_len, uintptr_t msg, size_t msg_len, uintptr_t sig, size_t sig_len) {
  uint8_t u[wacore::curve::kKeyBytes];
  if (Error e = wacore::curve::parse_public_key(bytes(pub, pub_len), u); e != Error::ok) return e;
  if (sig_len != wacore::curve::kSignatureBytes) return Error::signature_length;
  return wire::Value::of(wacore::curve::verify(u, bytes(msg, msg_len), at(sig)) ? 1 : 0);
}

// The ID (0..16383).
wire::Value registration_id() {
  uint32_t id = 0;
  if (Error e = wacore::signal::generate_registration_id(id); e != Error::ok) return e;
  return wire::Value::of(id);
}

// --- hashes and KDF ------------------------------------------------------------------------------

using wire::HashKind;
using wire::StreamKind;

// kind: a HashKind (bindings/boundary.json); any other number is refused, never a default hash.
Error sha(int32_t kind, uintptr_t data, size_t len, uintptr_t out) {
  if (kind == static_cast<int>(HashKind::kSha256)) {
    wacore::hash::sha256(bytes(data, len), at(out));
  } else if (kind == static_cast<int>(HashKind::kSha512)) {
    wacore::hash::sha512(bytes(data, len), at(out));
  } else if (kind == static_cast<int>(HashKind::kMd5)) {
    wacore::hash::md5(bytes(data, len), at(out));
  } else {
    return Error::type;
  }
  return Error::ok;
}

// kind: HashKind's SHA-256 or SHA-512.
Error hmac(int32_t kind, uintptr_t key, size_t key_len, uintptr_t data, size_t len, uintptr_t out) {
  if (kind == static_cast<int>(HashKind::kSha256)) {
    wacore::hash::hmac_sha256(bytes(key, key_len), bytes(data, len), at(out));
  } else if (kind == static_cast<int>(HashKind::kSha512)) {
    wacore::hash::hmac_sha512(bytes(key, key_len), bytes(data, len), at(out));
  } else {
    return Error::type;
  }
  return Error::ok;
}

Error hkdf(uintptr_t ikm, size_t ikm_len, uintptr_t salt, size_t salt_len, uintptr_t info, size_t info_len, uintptr_t out,
           size_t out_len) {
  return wacore::hash::hkdf(bytes(ikm, ikm_len), bytes(salt, salt_len), bytes(info, info_len), {at(out), out_len});
}

bool ct_equal(uintptr_t a, uintptr_t b, size_t n) { return wacore::hash::equal(at(a), at(b), n); }

// --- AES one-shot, in place in the I/O buffer -----------------------------------------------------

namespace {
Error check_key_iv(size_t key_len, size_t iv_len, size_t want_iv) {
  if (key_len != wacore::aes::kKeyBytes) return Error::key_length;
  if (iv_len != want_iv) return Error::iv_length;
  return Error::ok;
}
}  // namespace

// buf holds len bytes of plaintext and room for 16 more; the ciphertext length.
wire::Value aes_cbc_encrypt(uintptr_t key, size_t key_len, uintptr_t iv, size_t iv_len, uintptr_t buf, size_t len) {
  if (Error e = check_key_iv(key_len, iv_len, wacore::aes::kIvBytes); e != Error::ok) return e;
  wacore::aes::cbc_encrypt(at(key), at(iv), at(buf), len, at(buf));
  return wire::Value::of(wacore::aes::cbc_encrypted_size(len));
}

// The plaintext length.
wire::Value aes_cbc_decrypt(uintptr_t key, size_t key_len, uintptr_t iv, size_t iv_len, uintptr_t buf, size_t len) {
  if (Error e = check_key_iv(key_len, iv_len, wacore::aes::kIvBytes); e != Error::ok) return e;
  size_t n = 0;
  if (Error e = wacore::aes::cbc_decrypt(at(key), at(iv), at(buf), len, at(buf), &n); e != Error::ok) return e;
  return wire::Value::of(n);
}

Error aes_ctr(uintptr_t key, size_t key_len, uintptr_t iv, size_t iv_len, uintptr_t buf, size_t len) {
  if (Error e = check_key_iv(key_len, iv_len, wacore::aes::kIvBytes); e != Error::ok) return e;
  wacore::aes::ctr(at(key), at(iv), at(buf), at(buf), len);
  return Error::ok;
}

// buf holds len bytes and room for the 16-byte tag.
Error aes_gcm_seal(uintptr_t key, size_t key_len, uintptr_t iv, size_t iv_len, uintptr_t aad, size_t aad_len,
                   uintptr_t buf, size_t len) {
  if (key_len != wacore::aes::kKeyBytes) return Error::key_length;
  return wacore::aes::gcm_seal(at(key), bytes(iv, iv_len), bytes(aad, aad_len), at(buf), len, at(buf));
}

// buf holds ciphertext and tag (len bytes); the plaintext replaces it only if the tag is valid.
Error aes_gcm_open(uintptr_t key, size_t key_len, uintptr_t iv, size_t iv_len, uintptr_t aad, size_t aad_len,
                   uintptr_t buf, size_t len) {
  if (key_len != wacore::aes::kKeyBytes) return Error::key_length;
  return wacore::aes::gcm_open(at(key), bytes(iv, iv_len), bytes(aad, aad_len), at(buf), len, at(buf));
}

// --- streams: one malloc'd state per JS stream object, freed (and wiped) by final or free ------------

// The kinds are bindings/boundary.json's StreamKind.
using enum StreamKind;

namespace {
struct Stream {
  StreamKind kind;
  union {
    wacore::aes::CbcEncryptor cbc_enc;
    wacore::aes::CbcDecryptor cbc_dec;
    wacore::aes::Ctr ctr;
    wacore::aes::Gcm gcm;
    wacore::hash::Stream hash;
    wacore::media::Encryptor media_enc;
    wacore::media::Decryptor media_dec;
  };
};
}  // namespace

void stream_free(uintptr_t stream) {
  if (stream == 0) return;
  sodium_memzero(at<Stream>(stream), sizeof(Stream));
  std::free(at<Stream>(stream));
}

// The handle (> 0).
wire::Value stream_create(int32_t kind_number, uintptr_t key, size_t key_len, uintptr_t iv, size_t iv_len) {
  if (kind_number < wire::kStreamKindFirst || kind_number > wire::kStreamKindLast) return Error::type;
  const StreamKind kind = static_cast<StreamKind>(kind_number);
  const bool is_hash = kind == kSha256 || kind == kSha512 || kind == kHmacSha256 || kind == kHmacSha512;
  const bool is_media = kind == kMediaEncrypt || kind == kMediaDecrypt;
  if (is_media && key_len != sizeof(wacore::media::Keys)) return Error::key_length;
  if (!is_hash && !is_media) {
    const size_t want_iv = (kind == kGcmEncrypt || kind == kGcmDecrypt) ? iv_len : wacore::aes::kIvBytes;
    if (Error e = check_key_iv(key_len, iv_len, want_iv); e != Error::ok) return e;
  }
  auto* s = static_cast<Stream*>(std::malloc(sizeof(Stream)));
  if (s == nullptr) return Error::out_of_memory;
  s->kind = kind;
  Error e = Error::ok;
  switch (kind) {
    case kCbcEncrypt: s->cbc_enc.init(at(key), at(iv)); break;
    case kCbcDecrypt: s->cbc_dec.init(at(key), at(iv)); break;
    case kCtr: s->ctr.init(at(key), at(iv)); break;
    case kGcmEncrypt:
    case kGcmDecrypt: e = s->gcm.init(at(key), bytes(iv, iv_len), kind == kGcmEncrypt); break;
    case kSha256: s->hash.init(wacore::hash::Algorithm::sha256); break;
    case kSha512: s->hash.init(wacore::hash::Algorithm::sha512); break;
    case kHmacSha256: s->hash.init(wacore::hash::Algorithm::hmac_sha256, bytes(key, key_len)); break;
    case kHmacSha512: s->hash.init(wacore::hash::Algorithm::hmac_sha512, bytes(key, key_len)); break;
    case kMediaEncrypt: s->media_enc.init(*at<const wacore::media::Keys>(key)); break;
    case kMediaDecrypt: s->media_dec.init(*at<const wacore::media::Keys>(key)); break;
  }
  if (e != Error::ok) {
    stream_free(reinterpret_cast<uintptr_t>(s));
    return e;
  }
  return wire::Value::of(reinterpret_cast<uintptr_t>(s));
}

// Output bytes update(len) will produce.
size_t stream_update_size(uintptr_t stream, size_t len) {
  const Stream& s = *at<Stream>(stream);
  switch (s.kind) {
    case kCbcEncrypt: return s.cbc_enc.update_size(len);
    case kCbcDecrypt: return s.cbc_dec.update_size(len);
    case kCtr:
    case kGcmEncrypt:
    case kGcmDecrypt: return len;
    case kMediaEncrypt: return s.media_enc.update_size(len);
    case kMediaDecrypt: return s.media_dec.update_size(len);
    default: return 0;
  }
}

Error stream_aad(uintptr_t stream, uintptr_t data, size_t len) {
  Stream& s = *at<Stream>(stream);
  if (s.kind != kGcmEncrypt && s.kind != kGcmDecrypt) return Error::stream_state;
  return s.gcm.aad(bytes(data, len));
}

// Processes len bytes from data, writing stream_update_size(len) bytes to out (out may equal data
// for CTR and GCM, and for CBC when out does not run ahead of data): the bytes written.
wire::Value stream_update(uintptr_t stream, uintptr_t data, size_t len, uintptr_t out) {
  Stream& s = *at<Stream>(stream);
  switch (s.kind) {
    case kCbcEncrypt: return wire::Value::of(s.cbc_enc.update(at(data), len, at(out)));
    case kCbcDecrypt: return wire::Value::of(s.cbc_dec.update(at(data), len, at(out)));
    case kCtr: s.ctr.update(at(data), at(out), len); return wire::Value::of(len);
    case kGcmEncrypt:
    case kGcmDecrypt: {
      const Error e = s.gcm.update(at(data), at(out), len);
      if (e != Error::ok) return e;
      return wire::Value::of(len);
    }
    case kMediaEncrypt: return wire::Value::of(s.media_enc.update(at(data), len, at(out)));
    case kMediaDecrypt: return wire::Value::of(s.media_dec.update(at(data), len, at(out)));
    default: s.hash.update(bytes(data, len)); return wire::Value::of(0);
  }
}

namespace {
// Where a media stream's final() puts the two file hashes.
constexpr size_t kSha256At = wire::kMediaFinalTailBytes;
constexpr size_t kEncSha256At = kSha256At + wire::kSha256Bytes;

wire::Value finish(Stream& s, uintptr_t out, uintptr_t tag, size_t tag_len) {
  switch (s.kind) {
    case kCbcEncrypt: s.cbc_enc.final(at(out)); return wire::Value::of(wacore::aes::kBlockBytes);
    case kCbcDecrypt: {
      size_t n = 0;
      if (Error e = s.cbc_dec.final(at(out), &n); e != Error::ok) return e;
      return wire::Value::of(n);
    }
    case kCtr: return wire::Value::of(0);
    case kGcmEncrypt: {
      if (Error e = s.gcm.final_tag(at(out)); e != Error::ok) return e;
      return wire::Value::of(wacore::aes::kGcmTagBytes);
    }
    case kGcmDecrypt: {
      const Error e = tag_len == wacore::aes::kGcmTagBytes ? s.gcm.final_verify(at(tag)) : Error::auth_tag;
      if (e != Error::ok) return e;
      return wire::Value::of(0);
    }
    // Media: out receives the last bytes, then fileSha256 and fileEncSha256 (MEDIA_FINAL_TAIL_BYTES on).
    case kMediaEncrypt:
      s.media_enc.final(at(out), at(out + kSha256At), at(out + kEncSha256At));
      return wire::Value::of(wacore::aes::kBlockBytes + wacore::media::kMacBytes);
    case kMediaDecrypt: {
      size_t n = 0;
      if (Error e = s.media_dec.final(at(out), &n, at(out + kSha256At), at(out + kEncSha256At)); e != Error::ok) return e;
      return wire::Value::of(n);
    }
    default: {
      const size_t n = s.hash.digest_size();
      s.hash.final(at(out));
      return wire::Value::of(n);
    }
  }
}
}  // namespace

// Finishes the stream and frees it. out receives the last bytes (CBC: up to 16; GCM encrypt: the
// tag; hashes: the digest); tag is the expected tag for GCM decryption. The bytes written.
wire::Value stream_final(uintptr_t stream, uintptr_t out, uintptr_t tag, size_t tag_len) {
  const wire::Value result = finish(*at<Stream>(stream), out, tag, tag_len);
  stream_free(stream);
  return result;
}

// --- binary node codec: one call per decode or encode; results described in the result words -----------

namespace {
// Where the last decode's tape, string table, pool and bytes are (read by the JS side from memory
// after the call), or the last encode's output: the u32 words of BinaryResultWord.
using wire::BinaryResultWord;
uint32_t g_binary[wire::kBinaryResultWordLast + 1];
void set(BinaryResultWord w, uint32_t v) { g_binary[static_cast<int>(w)] = v; }
wacore::binary::DecodedTape g_tape;   // reused: steady decoding allocates nothing
std::vector<uint8_t> g_encoded;       // reused by encode

uint32_t addr(const void* p) { return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p)); }

Error decode(uintptr_t data, size_t len, int32_t dict) {
  const Error e = wacore::binary::decode_tape(bytes(data, len), static_cast<wacore::binary::Dict>(dict), g_tape);
  if (e != Error::ok) return e;
  set(BinaryResultWord::kWords, addr(g_tape.words.data()));
  set(BinaryResultWord::kWordCount, static_cast<uint32_t>(g_tape.words.size()));
  set(BinaryResultWord::kStrings, addr(g_tape.strings.data()));
  set(BinaryResultWord::kStringCount, static_cast<uint32_t>(g_tape.strings.size() / 2));
  set(BinaryResultWord::kPool, addr(g_tape.pool.data()));
  set(BinaryResultWord::kPoolLength, static_cast<uint32_t>(g_tape.pool.size()));
  set(BinaryResultWord::kBlob, addr(g_tape.blob.data()));
  set(BinaryResultWord::kBlobLength, static_cast<uint32_t>(g_tape.blob.size()));
  set(BinaryResultWord::kAscii, g_tape.ascii ? 1 : 0);
  return Error::ok;
}

Error encode(uintptr_t words, size_t word_count, uintptr_t strings, size_t string_count, uintptr_t area,
             size_t area_len, int32_t dict) {
  g_encoded.clear();
  const Error e = wacore::binary::encode_tape({at<const int32_t>(words), word_count},
                                              {at<const int32_t>(strings), 2 * string_count}, bytes(area, area_len),
                                              static_cast<wacore::binary::Dict>(dict), g_encoded);
  if (e != Error::ok) return e;
  set(BinaryResultWord::kOut, addr(g_encoded.data()));
  set(BinaryResultWord::kOutLength, static_cast<uint32_t>(g_encoded.size()));
  return Error::ok;
}
}  // namespace

uintptr_t binary_result() { return reinterpret_cast<uintptr_t>(g_binary); }

// What the last codec call left, zeroed: the decoded tape with its strings, bytes and inflated
// frame, or the encoded frame; and the len bytes at data (the frame a decode read). The JS side calls
// it once it has read them.
void binary_wipe(uintptr_t data, size_t len) {
  g_tape.wipe();
  if (!g_encoded.empty()) sodium_memzero(g_encoded.data(), g_encoded.size());
  g_encoded.clear();
  if (len != 0) sodium_memzero(at(data), len);
}

// The token strings of a dictionary (2 or 3) by id, LF-separated, written to out when it is not 0;
// returns their length. Nothing is allocated: the JS side asks for the length, then has the text
// written into its I/O buffer (once per dictionary).
size_t binary_tokens(int32_t dict, uintptr_t out) {
  size_t n = 0;
  for (int id = 0; id < wacore::binary::kTokenCount; id++) {
    if (id > 0) {
      if (out != 0) at(out)[n] = '\n';
      n++;
    }
    const std::string_view s = wacore::binary::token_string(static_cast<wacore::binary::Dict>(dict), id);
    if (out != 0) std::memcpy(at(out) + n, s.data(), s.size());
    n += s.size();
  }
  return n;
}

// The codec's two entry points run thousands of times a minute on small stanzas. Out of memory
// leaves nothing of a half-made result: the tape is cleared, the encoded bytes wiped.
Error binary_decode(uintptr_t data, size_t len, int32_t dict) {
  bool failed = false;
  const Error e = guard(Error::out_of_memory, [&] { return decode(data, len, dict); }, failed);
  if (failed) g_tape.wipe();  // what it had decoded of the frame, zeroed (clear() would keep it in capacity)
  return e;
}

// The tape (word_count words at words), its string table (string_count pairs at strings) and the
// area the table and byte contents refer to, as the JS side wrote them into the I/O buffer.
Error binary_encode(uintptr_t words, size_t word_count, uintptr_t strings, size_t string_count, uintptr_t area,
                    size_t area_len, int32_t dict) {
  bool failed = false;
  const Error e = guard(
      Error::out_of_memory, [&] { return encode(words, word_count, strings, string_count, area, area_len, dict); },
      failed);
  wipe_tape(words, word_count, strings, string_count, area, area_len);
  if (failed) {
    if (!g_encoded.empty()) sodium_memzero(g_encoded.data(), g_encoded.size());
    g_encoded.clear();
  }
  return e;
}

// --- media ---------------------------------------------------------------------------------------------

namespace md = wacore::media;
namespace {
const md::Keys& media_keys_at(uintptr_t p) { return *at<const md::Keys>(p); }
}  // namespace

// out: the 112 bytes of derived keys (iv, cipher key, MAC key, ref key).
Error media_keys(uintptr_t key, size_t key_len, uintptr_t info, size_t info_len, uintptr_t out) {
  return md::derive_keys(bytes(key, key_len), {at<const char>(info), info_len}, *at<md::Keys>(out));
}

// out holds encrypted_size(len); hashes at sha and enc_sha (32 bytes each). The upload length.
wire::Value media_encrypt(uintptr_t keys, uintptr_t data, size_t len, uintptr_t out, uintptr_t sha, uintptr_t enc_sha) {
  md::encrypt(media_keys_at(keys), bytes(data, len), at(out), at(sha), at(enc_sha));
  return wire::Value::of(md::encrypted_size(len));
}

// expected hashes: address of 32 bytes, or 0 to skip. The plaintext length.
wire::Value media_decrypt(uintptr_t keys, uintptr_t upload, size_t len, uintptr_t enc_sha, uintptr_t sha, uintptr_t out) {
  size_t n = 0;
  const Error e = md::decrypt(media_keys_at(keys), bytes(upload, len), enc_sha ? at(enc_sha) : nullptr,
                              sha ? at(sha) : nullptr, at(out), &n);
  if (e != Error::ok) return e;
  return wire::Value::of(n);
}

Error media_decrypt_range(uintptr_t keys, uintptr_t prev, uintptr_t data, size_t len, uintptr_t out) {
  return md::decrypt_range(media_keys_at(keys), at(prev), bytes(data, len), at(out));
}

wire::Value media_sidecar(uintptr_t keys, uintptr_t upload, size_t len, uintptr_t out) {
  md::sidecar(media_keys_at(keys), bytes(upload, len), at(out));
  return wire::Value::of(md::sidecar_size(len));
}

size_t media_sidecar_size(size_t len) { return md::sidecar_size(len); }

size_t media_encrypted_size(size_t len) { return md::encrypted_size(len); }

// --- app state ---------------------------------------------------------------------------------------

namespace as = wacore::appstate;
namespace {
std::string_view name_at(uintptr_t p, size_t n) { return {at<const char>(p), n}; }
uint64_t u64(uint32_t hi, uint32_t lo) { return static_cast<uint64_t>(hi) << 32 | lo; }
as::MutationKeys& keys_at(uintptr_t p) { return *at<as::MutationKeys>(p); }
bool is_operation(int32_t op) { return op == 0 || op == 1; }
}  // namespace

void appstate_expand_keys(uintptr_t data, size_t len, uintptr_t out) { as::expand_keys(bytes(data, len), keys_at(out)); }

// In place on the 128-byte hash at `hash`; the MAC lists are 32-byte MACs end to end.
void appstate_lt_hash(uintptr_t hash, uintptr_t add, size_t add_len, uintptr_t sub, size_t sub_len) {
  as::lthash_subtract_then_add(at(hash), bytes(add, add_len), bytes(sub, sub_len));
}

void appstate_index_mac(uintptr_t key, uintptr_t index, size_t len, uintptr_t out) {
  as::index_mac(at(key), bytes(index, len), at(out));
}

Error appstate_value_mac(int32_t op, uintptr_t key_id, size_t key_id_len, uintptr_t data, size_t len, uintptr_t key,
                         uintptr_t out) {
  if (!is_operation(op)) return Error::type;
  as::value_mac(static_cast<as::Operation>(op), bytes(key_id, key_id_len), bytes(data, len), at(key), at(out));
  return Error::ok;
}

void appstate_snapshot_mac(uintptr_t lt_hash, uint32_t version_hi, uint32_t version_lo, uintptr_t name, size_t name_len,
                           uintptr_t key, uintptr_t out) {
  as::snapshot_mac(at(lt_hash), u64(version_hi, version_lo), name_at(name, name_len), at(key), at(out));
}

void appstate_patch_mac(uintptr_t snapshot, uintptr_t macs, size_t macs_len, uint32_t version_hi, uint32_t version_lo,
                        uintptr_t name, size_t name_len, uintptr_t key, uintptr_t out) {
  as::patch_mac(at(snapshot), bytes(macs, macs_len), u64(version_hi, version_lo), name_at(name, name_len), at(key),
                at(out));
}

size_t appstate_encrypted_value_size(size_t len) { return as::encrypted_value_size(len); }

// keys: the 160-byte expansion; out holds encrypted_value_size(len) bytes. Its length.
wire::Value appstate_encrypt_value(uintptr_t keys, int32_t op, uintptr_t key_id, size_t key_id_len, uintptr_t data,
                                   size_t len, uintptr_t iv, uintptr_t out) {
  if (!is_operation(op)) return Error::type;
  as::encrypt_value(keys_at(keys), static_cast<as::Operation>(op), bytes(key_id, key_id_len), bytes(data, len), at(iv),
                    at(out));
  return wire::Value::of(as::encrypted_value_size(len));
}

// The plaintext length.
wire::Value appstate_decrypt_value(uintptr_t keys, int32_t op, uintptr_t key_id, size_t key_id_len, uintptr_t blob,
                                   size_t len, uintptr_t out) {
  if (!is_operation(op)) return Error::type;
  size_t n = 0;
  const Error e = as::decrypt_value(keys_at(keys), static_cast<as::Operation>(op), bytes(key_id, key_id_len),
                                    bytes(blob, len), at(out), &n);
  if (e != Error::ok) return e;
  return wire::Value::of(n);
}

}  // namespace wacore::bindings::plain

// --- media retry (generated exports, bindings/boundary.json) ------------------------------------------
namespace wacore::bindings::impl {

int media_retry_seal(const wire::MediaRetrySealIn& in) {
  std::vector<uint8_t> sealed(in.plaintext.size() + wacore::aes::kGcmTagBytes);
  uint8_t iv[wacore::media::kRetryNonceBytes];
  const Error e = wacore::media::retry_seal(in.media_key, in.message_id, in.plaintext, iv, sealed.data());
  if (e != Error::ok) return rc(e);
  return emit(wire::MediaRetrySealOut{.iv = std::span<const uint8_t, sizeof iv>(iv), .ciphertext = sealed});
}

int media_retry_open(const wire::MediaRetryOpenIn& in) {
  if (in.ciphertext.size() < wacore::aes::kGcmTagBytes) return rc(Error::data_length);
  std::vector<uint8_t> plain(in.ciphertext.size() - wacore::aes::kGcmTagBytes);
  const Error e = wacore::media::retry_open(in.media_key, in.message_id, in.iv, in.ciphertext, plain.data());
  const int result = e != Error::ok ? rc(e) : emit(wire::SecretOut{.bytes = plain});
  sodium_memzero(plain.data(), plain.size());
  return result;
}

}  // namespace wacore::bindings::impl

EMSCRIPTEN_BINDINGS(wacore) {
  using emscripten::function;
  emscripten::constant("variant", std::string(WACORE_VARIANT));
  function("init", &init);
  function("ioBuffer", &io_buffer);
  function("heapInUse", &heap_in_use);
}

// The plain exports of this file (bindings/boundary.json, "plain"), generated.
#include "generated/wacore_bindings.inc"
