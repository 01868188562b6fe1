#include "media/media.h"

#include <sodium.h>

#include <cstring>

#include "common/bytes.h"
#include "common/ct.h"
#include "common/random.h"

namespace wacore::media {
namespace {

std::span<const uint8_t> text(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

// Both directions run the same four states: CBC, the MAC over iv || ciphertext (so it starts with
// the iv), and the two file hashes.
template <typename Stream>
void init_states(Stream& s, const Keys& keys) {
  s.cbc.init(keys.cipher, keys.iv);
  s.mac.init(hash::Algorithm::hmac_sha256, {keys.mac, sizeof keys.mac});
  s.mac.update({keys.iv, sizeof keys.iv});
  s.plain_hash.init(hash::Algorithm::sha256);
  s.enc_hash.init(hash::Algorithm::sha256);
}

// The media-retry key: HKDF-SHA256(media key, no salt, kRetryInfo, 32).
Error retry_key(std::span<const uint8_t> media_key, uint8_t key[aes::kKeyBytes]) noexcept {
  if (media_key.size() != kMediaKeyBytes) return Error::key_length;
  return hash::hkdf(media_key, {}, text(kRetryInfo), {key, aes::kKeyBytes});
}

}  // namespace

Error derive_keys(std::span<const uint8_t> media_key, std::string_view info, Keys& out) noexcept {
  if (media_key.size() != kMediaKeyBytes) return Error::key_length;
  static_assert(sizeof(Keys) == 112);
  return hash::hkdf(media_key, {}, text(info), {reinterpret_cast<uint8_t*>(&out), sizeof out});
}

// --- encryption ----------------------------------------------------------------------------------------

void Encryptor::init(const Keys& keys) noexcept { init_states(*this, keys); }

size_t Encryptor::update(const uint8_t* in, size_t len, uint8_t* out) noexcept {
  plain_hash.update({nonnull({in, len}), len});
  const size_t n = cbc.update(in, len, out);
  mac.update({nonnull({out, n}), n});
  enc_hash.update({nonnull({out, n}), n});
  return n;
}

void Encryptor::final(uint8_t tail[16 + kMacBytes], uint8_t file_sha256[32], uint8_t file_enc_sha256[32]) noexcept {
  cbc.final(tail);
  mac.update({tail, 16});
  uint8_t full[32];
  mac.final(full);
  std::memcpy(tail + 16, full, kMacBytes);
  enc_hash.update({tail, 16 + kMacBytes});
  plain_hash.final(file_sha256);
  enc_hash.final(file_enc_sha256);
  sodium_memzero(full, sizeof full);
  wipe();
}

void Encryptor::wipe() noexcept { sodium_memzero(this, sizeof *this); }

void encrypt(const Keys& keys, std::span<const uint8_t> plaintext, uint8_t* out, uint8_t file_sha256[32],
             uint8_t file_enc_sha256[32]) noexcept {
  Encryptor e;
  e.init(keys);
  const size_t n = e.update(plaintext.data(), plaintext.size(), out);
  e.final(out + n, file_sha256, file_enc_sha256);
}

// --- decryption ----------------------------------------------------------------------------------------

void Decryptor::init(const Keys& keys) noexcept {
  init_states(*this, keys);
  held_len = 0;
  total = 0;
}

size_t Decryptor::update_size(size_t len) const noexcept {
  // Everything except the newest 10 bytes (possibly the MAC) goes to CBC, which holds back a block.
  const size_t avail = held_len + len;
  const size_t to_cbc = avail > kMacBytes ? avail - kMacBytes : 0;
  return cbc.update_size(to_cbc);
}

size_t Decryptor::update(const uint8_t* in, size_t len, uint8_t* out) noexcept {
  enc_hash.update({nonnull({in, len}), len});
  total += len;
  size_t written = 0;
  auto feed = [&](const uint8_t* p, size_t n) {
    if (n == 0) return;
    mac.update({p, n});
    const size_t w = cbc.update(p, n, out + written);
    plain_hash.update({nonnull({out + written, w}), w});
    written += w;
  };
  if (held_len + len <= sizeof held) {
    // Keep the newest bytes; release what can no longer be part of the MAC.
    copy_bytes(held + held_len, in, len);
    held_len = static_cast<uint8_t>(held_len + len);
    if (held_len > kMacBytes) {
      const size_t release = held_len - kMacBytes;
      feed(held, release);
      std::memmove(held, held + release, kMacBytes);
      held_len = kMacBytes;
    }
    return written;
  }
  // A large chunk: release what was held, then all but the chunk's last 10 bytes.
  feed(held, held_len);
  feed(in, len - kMacBytes);
  std::memcpy(held, in + len - kMacBytes, kMacBytes);
  held_len = kMacBytes;
  return written;
}

Error Decryptor::final(uint8_t tail[16], size_t* tail_len, uint8_t file_sha256[32],
                       uint8_t file_enc_sha256[32]) noexcept {
  *tail_len = 0;
  if (held_len != kMacBytes || total < 16 + kMacBytes || (total - kMacBytes) % 16 != 0) {
    wipe();
    return Error::data_length;
  }
  uint8_t full[32];
  mac.final(full);
  const bool mac_ok = ct::declassify(hash::equal(full, held, kMacBytes));  // the verdict is public
  sodium_memzero(full, sizeof full);
  if (!mac_ok) {
    wipe();
    return Error::auth_tag;
  }
  const Error e = cbc.final(tail, tail_len);
  if (e != Error::ok) {
    wipe();
    return e;
  }
  plain_hash.update({tail, *tail_len});
  plain_hash.final(file_sha256);
  enc_hash.final(file_enc_sha256);
  wipe();
  return Error::ok;
}

void Decryptor::wipe() noexcept { sodium_memzero(this, sizeof *this); }

Error decrypt(const Keys& keys, std::span<const uint8_t> upload, const uint8_t* expected_enc_sha256,
              const uint8_t* expected_sha256, uint8_t* out, size_t* out_len) noexcept {
  *out_len = 0;
  if (upload.size() < 16 + kMacBytes || (upload.size() - kMacBytes) % 16 != 0) return Error::data_length;
  const size_t ct_len = upload.size() - kMacBytes;
  // Authenticate first: nothing is decrypted from a file that fails either check.
  if (expected_enc_sha256 != nullptr) {
    uint8_t h[32];
    hash::sha256(upload, h);
    const bool same = ct::declassify(hash::equal(h, expected_enc_sha256, 32));
    if (!same) return Error::auth_tag;
  }
  uint8_t mac[32];
  hash::Stream m;
  m.init(hash::Algorithm::hmac_sha256, {keys.mac, sizeof keys.mac});
  m.update({keys.iv, sizeof keys.iv});
  m.update(upload.first(ct_len));
  m.final(mac);
  const bool mac_ok = ct::declassify(hash::equal(mac, upload.data() + ct_len, kMacBytes));
  sodium_memzero(mac, sizeof mac);
  if (!mac_ok) return Error::auth_tag;
  if (Error e = aes::cbc_decrypt(keys.cipher, keys.iv, upload.data(), ct_len, out, out_len); e != Error::ok) return e;
  if (expected_sha256 != nullptr) {
    uint8_t h[32];
    hash::sha256({out, *out_len}, h);
    if (!ct::declassify(hash::equal(h, expected_sha256, 32))) {
      sodium_memzero(out, *out_len);
      *out_len = 0;
      return Error::auth_tag;
    }
  }
  return Error::ok;
}

Error decrypt_range(const Keys& keys, const uint8_t prev_block[16], std::span<const uint8_t> ciphertext,
                    uint8_t* out) noexcept {
  if (ciphertext.size() % 16 != 0) return Error::data_length;
  aes::CbcDecryptor d;
  d.init(keys.cipher, prev_block);
  // Feed everything, then one more dummy block is not needed: decrypt all held blocks directly.
  const size_t n = d.update(ciphertext.data(), ciphertext.size(), out);
  if (d.pending_len == 16) {
    // The last block the decryptor held back for padding: decrypt it too (a range keeps padding).
    uint8_t block[16];
    aes::Key k = d.key;
    aes::decrypt_blocks(k, d.pending, block, 1);
    for (int i = 0; i < 16; i++) out[n + i] = block[i] ^ d.chain[i];
    sodium_memzero(block, sizeof block);
    aes::wipe(k);
  }
  d.wipe();
  return Error::ok;
}

size_t sidecar_size(size_t upload_len) noexcept {
  const size_t s = 16 + upload_len;  // iv || upload
  return (s + kSidecarChunk - 1) / kSidecarChunk * kMacBytes;
}

void sidecar(const Keys& keys, std::span<const uint8_t> upload, uint8_t* out) noexcept {
  const size_t s_len = 16 + upload.size();
  auto byte_range = [&](size_t from, size_t to, auto&& sink) {
    // S = iv || upload, read without building it.
    if (from < 16) {
      const size_t end = to < 16 ? to : 16;
      sink(keys.iv + from, end - from);
      from = end;
    }
    if (from < to) sink(upload.data() + (from - 16), to - from);
  };
  for (size_t n = 0, at = 0; at < s_len; n++, at += kSidecarChunk) {
    const size_t end = at + kSidecarChunk + 16 < s_len ? at + kSidecarChunk + 16 : s_len;
    hash::Stream m;
    m.init(hash::Algorithm::hmac_sha256, {keys.mac, sizeof keys.mac});
    byte_range(at, end, [&](const uint8_t* p, size_t len) { m.update({p, len}); });
    uint8_t full[32];
    m.final(full);
    std::memcpy(out + n * kMacBytes, full, kMacBytes);
  }
}

// --- media retry ---------------------------------------------------------------------------------------

Error retry_seal(std::span<const uint8_t> media_key, std::span<const uint8_t> message_id,
                 std::span<const uint8_t> plaintext, uint8_t iv[kRetryNonceBytes], uint8_t* out) noexcept {
  uint8_t key[aes::kKeyBytes];
  Error e = retry_key(media_key, key);
  if (e == Error::ok) e = random_bytes(iv, kRetryNonceBytes);
  if (e == Error::ok) e = aes::gcm_seal(key, {iv, kRetryNonceBytes}, message_id, plaintext.data(), plaintext.size(), out);
  sodium_memzero(key, sizeof key);
  return e;
}

Error retry_open(std::span<const uint8_t> media_key, std::span<const uint8_t> message_id, std::span<const uint8_t> iv,
                 std::span<const uint8_t> sealed, uint8_t* out) noexcept {
  uint8_t key[aes::kKeyBytes];
  Error e = retry_key(media_key, key);
  if (e == Error::ok) e = aes::gcm_open(key, iv, message_id, sealed.data(), sealed.size(), out);
  sodium_memzero(key, sizeof key);
  return e;
}

}  // namespace wacore::media
