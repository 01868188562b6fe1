#include "crypto/aes_modes.h"

#include <sodium.h>

#include <algorithm>
#include <cstring>

#include "common/bytes.h"
#include "common/ct.h"
#include "crypto/hash.h"

namespace wacore::aes {
namespace {

// Blocks handed to the block layer at once: a multiple of every batch size, small enough for the
// stack (2 x 512 bytes).
constexpr size_t kChunkBlocks = 32;
static_assert(kChunkBlocks % kParallelBlocks == 0);

// GCM's per-message limit: 2^32 - 2 blocks of keystream (SP 800-38D, 5.2.1.1).
constexpr uint64_t kGcmMaxData = (uint64_t{1} << 36) - 32;

void xor_into(uint8_t* out, const uint8_t* a, const uint8_t* b, size_t n) {
  for (size_t i = 0; i < n; i++) out[i] = a[i] ^ b[i];
}

void increment(uint8_t counter[kBlockBytes], bool inc32) {
  // Big-endian +1 over the last 4 bytes (GCM) or all 16 (CTR). The branch depends only on the
  // counter, which is public (it travels as the IV).
  const int stop = inc32 ? kBlockBytes - 4 : 0;
  for (int i = kBlockBytes - 1; i >= stop; i--) {
    if (++counter[i] != 0) break;
  }
}

// 0xFF when a == b, else 0, without branches.
uint8_t eq_mask(uint8_t a, uint8_t b) {
  const uint32_t d = static_cast<uint32_t>(a ^ b);
  return static_cast<uint8_t>(0 - (((d - 1) >> 8) & 1));
}

// 0xFF when a < b (both below 256), else 0.
uint8_t lt_mask(uint32_t a, uint32_t b) { return static_cast<uint8_t>(0 - ((a - b) >> 31)); }

// Checks PKCS#7 padding of the last plaintext block without branching on its bytes. Returns the
// number of message bytes in the block (0..15), or -1 when the padding is bad.
int unpad(const uint8_t block[kBlockBytes]) {
  const uint8_t n = block[kBlockBytes - 1];
  // valid: 1 <= n <= 16, and every one of the last n bytes equals n.
  uint8_t good = static_cast<uint8_t>(~eq_mask(n, 0) & lt_mask(n, kBlockBytes + 1));
  for (uint32_t i = 0; i < kBlockBytes; i++) {
    const uint8_t in_padding = lt_mask(kBlockBytes - 1 - i, n);  // position from the end < n
    good &= static_cast<uint8_t>(~in_padding | eq_mask(block[i], n));
  }
  // The decision and the length are public (the caller learns them), so branching here is fine.
  return ct::declassify(good) == 0xFF ? static_cast<int>(kBlockBytes - ct::declassify(n)) : -1;
}

// CBC-decrypts whole blocks; chain holds the previous ciphertext block and is updated. in and out
// may be the same buffer: each chunk's ciphertext is copied before it is overwritten.
void cbc_decrypt_blocks(const Key& key, uint8_t chain[kBlockBytes], const uint8_t* in, uint8_t* out,
                        size_t blocks) {
  uint8_t ct[kChunkBlocks * kBlockBytes];
  while (blocks > 0) {
    const size_t n = std::min(blocks, kChunkBlocks);
    const size_t bytes = n * kBlockBytes;
    std::memcpy(ct, in, bytes);
    decrypt_blocks(key, ct, out, n);
    xor_into(out, out, chain, kBlockBytes);
    xor_into(out + kBlockBytes, out + kBlockBytes, ct, bytes - kBlockBytes);
    std::memcpy(chain, ct + bytes - kBlockBytes, kBlockBytes);
    in += bytes;
    out += bytes;
    blocks -= n;
  }
  sodium_memzero(ct, sizeof ct);
}

// XORs keystream from `counter` (advanced once per block) into len bytes, whole batches at a time; a
// trailing partial block rides in the last batch and its keystream is kept in `keystream`, with
// `used` set to the bytes of it consumed (unchanged when len ends on a block boundary).
void ctr_blocks(const Key& key, uint8_t counter[kBlockBytes], bool inc32, const uint8_t* in, uint8_t* out,
                size_t len, uint8_t keystream[kBlockBytes], uint8_t& used) {
  uint8_t blocks[kChunkBlocks * kBlockBytes];
  while (len > 0) {
    const size_t n = std::min((len + kBlockBytes - 1) / kBlockBytes, kChunkBlocks);
    for (size_t i = 0; i < n; i++) {
      std::memcpy(blocks + i * kBlockBytes, counter, kBlockBytes);
      increment(counter, inc32);
    }
    encrypt_blocks(key, blocks, blocks, n);
    const size_t take = std::min(len, n * kBlockBytes);
    xor_into(out, in, blocks, take);
    if (take % kBlockBytes != 0) {
      std::memcpy(keystream, blocks + (n - 1) * kBlockBytes, kBlockBytes);
      used = static_cast<uint8_t>(take % kBlockBytes);
    }
    in += take;
    out += take;
    len -= take;
  }
  sodium_memzero(blocks, sizeof blocks);
}

// --- one-shot GCM ------------------------------------------------------------------------------------

// J0 (SP 800-38D, 7.1): IV || 0^31 || 1 for a 12-byte IV, else GHASH_H(IV || 0-pad || [0]_64 ||
// [len(IV) in bits]_64). The IV is public.
void gcm_j0(const GcmKey& k, std::span<const uint8_t> iv, uint8_t j0[kBlockBytes]) {
  if (iv.size() == kGcmNonceBytes) {
    std::memcpy(j0, iv.data(), kGcmNonceBytes);
    std::memset(j0 + kGcmNonceBytes, 0, kBlockBytes - kGcmNonceBytes - 1);
    j0[kBlockBytes - 1] = 1;
    return;
  }
  ghash::State s;
  ghash::init(s, k.h);
  ghash::update(s, iv.data(), iv.size());
  ghash::update_lengths(s, 0, iv.size());
  ghash::digest(s, j0);
  ghash::wipe(s);
}

// The first batch of a message: AES_K(J0), the tag mask, in block 0, then the keystream of up to
// kChunkBlocks - 1 data blocks from inc32(J0). One call to the block layer for both, so a short
// message (a Noise frame) pays no batch of its own for the mask. When the caller already has the
// mask (a key used once computes it with H), block 0 is a copy of it and no data is covered here:
// the data then goes through whole batches from inc32(J0). Leaves counter at the next block;
// returns the data bytes the keystream in blocks covers.
size_t gcm_first_batch(const Key& key, uint8_t counter[kBlockBytes], size_t len, const uint8_t* mask,
                       uint8_t* blocks) {
  if (mask != nullptr) {
    std::memcpy(blocks, mask, kBlockBytes);
    increment(counter, /*inc32=*/true);
    return 0;
  }
  const size_t data_blocks = std::min((len + kBlockBytes - 1) / kBlockBytes, kChunkBlocks - 1);
  for (size_t i = 0; i <= data_blocks; i++) {
    std::memcpy(blocks + i * kBlockBytes, counter, kBlockBytes);
    increment(counter, /*inc32=*/true);
  }
  encrypt_blocks(key, blocks, blocks, data_blocks + 1);
  return std::min(len, data_blocks * kBlockBytes);
}

// The tag: GHASH_H(AAD, ciphertext, lengths) XOR mask. AAD and ciphertext are zero-padded separately.
void gcm_tag(const GcmKey& k, std::span<const uint8_t> aad, const uint8_t* ct, size_t len,
             const uint8_t mask[kBlockBytes], uint8_t tag[kGcmTagBytes]) {
  ghash::State s;
  ghash::init(s, k.h);
  ghash::update(s, aad.data(), aad.size());
  ghash::update(s, ct, len);
  ghash::update_lengths(s, aad.size(), len);
  ghash::digest(s, tag);
  xor_into(tag, tag, mask, kGcmTagBytes);
  ghash::wipe(s);
}

}  // namespace

// --- CTR ---------------------------------------------------------------------------------------------

void Ctr::init(const uint8_t key_bytes[kKeyBytes], const uint8_t iv[kIvBytes], bool increment32) noexcept {
  expand_key(key, key_bytes);
  std::memcpy(counter, iv, kBlockBytes);
  used = kBlockBytes;
  inc32 = increment32;
}

void Ctr::update(const uint8_t* in, uint8_t* out, size_t len) noexcept {
  // Leftover keystream from a previous call first.
  while (len > 0 && used < kBlockBytes) {
    *out++ = *in++ ^ keystream[used++];
    len--;
  }
  ctr_blocks(key, counter, inc32, in, out, len, keystream, used);
}

void Ctr::wipe() noexcept { sodium_memzero(this, sizeof *this); }

void ctr(const uint8_t key[kKeyBytes], const uint8_t iv[kIvBytes], const uint8_t* in, uint8_t* out,
         size_t len) noexcept {
  Ctr c;
  c.init(key, iv);
  c.update(in, out, len);
  c.wipe();
}

// --- CBC ---------------------------------------------------------------------------------------------

namespace {
// CBC encryption of whole blocks: the byte-sliced rounds take one block at a time (SIMD build); the
// bitsliced ones pay a whole batch for each block (other builds).
#if defined(__wasm_simd128__)
void cbc_encrypt_whole(const byteslice::Key& k, uint8_t chain[kBlockBytes], const uint8_t* in, uint8_t* out,
                       size_t nblocks) noexcept {
  byteslice::cbc_encrypt_blocks(k, chain, in, out, nblocks);
}
#else
void cbc_encrypt_whole(const Key& k, uint8_t chain[kBlockBytes], const uint8_t* in, uint8_t* out,
                       size_t nblocks) noexcept {
  for (size_t i = 0; i < nblocks; i++) {
    xor_into(chain, chain, in + i * kBlockBytes, kBlockBytes);
    encrypt_blocks(k, chain, chain, 1);
    std::memcpy(out + i * kBlockBytes, chain, kBlockBytes);
  }
}
#endif
}  // namespace

void CbcEncryptor::init(const uint8_t key_bytes[kKeyBytes], const uint8_t iv[kIvBytes]) noexcept {
#if defined(__wasm_simd128__)
  byteslice::expand_key(key, key_bytes);
#else
  expand_key(key, key_bytes);
#endif
  std::memcpy(chain, iv, kBlockBytes);
  pending_len = 0;
}

size_t CbcEncryptor::update(const uint8_t* in, size_t len, uint8_t* out) noexcept {
  // CBC encryption is sequential: each block waits for the previous ciphertext. A block begun by an
  // earlier call is completed first; whole blocks then go straight from in to out.
  size_t written = 0;
  if (pending_len > 0) {
    const size_t take = std::min<size_t>(kBlockBytes - pending_len, len);
    copy_bytes(pending + pending_len, in, take);
    pending_len = static_cast<uint8_t>(pending_len + take);
    in += take;
    len -= take;
    if (pending_len < kBlockBytes) return 0;
    cbc_encrypt_whole(key, chain, pending, out, 1);
    written = kBlockBytes;
    pending_len = 0;
  }
  const size_t blocks = len / kBlockBytes;
  cbc_encrypt_whole(key, chain, in, out + written, blocks);
  written += blocks * kBlockBytes;
  copy_bytes(pending, in + blocks * kBlockBytes, len - blocks * kBlockBytes);
  pending_len = static_cast<uint8_t>(len - blocks * kBlockBytes);
  return written;
}

void CbcEncryptor::final(uint8_t out[kBlockBytes]) noexcept {
  const uint8_t pad = static_cast<uint8_t>(kBlockBytes - pending_len);
  std::memset(pending + pending_len, pad, pad);
  cbc_encrypt_whole(key, chain, pending, out, 1);
  wipe();
}

void CbcEncryptor::wipe() noexcept { sodium_memzero(this, sizeof *this); }

void cbc_encrypt(const uint8_t key[kKeyBytes], const uint8_t iv[kIvBytes], const uint8_t* in, size_t len,
                 uint8_t* out) noexcept {
  CbcEncryptor e;
  e.init(key, iv);
  const size_t written = e.update(in, len, out);
  e.final(out + written);
}

void CbcDecryptor::init(const uint8_t key_bytes[kKeyBytes], const uint8_t iv[kIvBytes]) noexcept {
  expand_key(key, key_bytes);
  std::memcpy(chain, iv, kBlockBytes);
  pending_len = 0;
}

size_t CbcDecryptor::update_size(size_t len) const noexcept {
  // Everything complete except the last full block, which may be the padded one.
  const size_t total = pending_len + len;
  if (total <= kBlockBytes) return 0;
  return (total - 1) / kBlockBytes * kBlockBytes;
}

size_t CbcDecryptor::update(const uint8_t* in, size_t len, uint8_t* out) noexcept {
  size_t written = 0;
  // Complete the pending block, if more input follows it.
  if (pending_len > 0 && pending_len + len > kBlockBytes) {
    const size_t take = kBlockBytes - pending_len;
    copy_bytes(pending + pending_len, in, take);
    in += take;
    len -= take;
    cbc_decrypt_blocks(key, chain, pending, out, 1);
    written += kBlockBytes;
    pending_len = 0;
  }
  if (pending_len == 0 && len > kBlockBytes) {
    // Decrypt all but the last (possibly partial, possibly padded) block in parallel batches.
    const size_t blocks = (len - 1) / kBlockBytes;
    cbc_decrypt_blocks(key, chain, in, out + written, blocks);
    written += blocks * kBlockBytes;
    in += blocks * kBlockBytes;
    len -= blocks * kBlockBytes;
  }
  copy_bytes(pending + pending_len, in, len);
  pending_len = static_cast<uint8_t>(pending_len + len);
  return written;
}

Error CbcDecryptor::final(uint8_t out[kBlockBytes], size_t* out_len) noexcept {
  *out_len = 0;
  if (pending_len != kBlockBytes) {
    wipe();
    return Error::data_length;
  }
  uint8_t block[kBlockBytes];
  cbc_decrypt_blocks(key, chain, pending, block, 1);
  const int n = unpad(block);
  if (n >= 0) {
    copy_bytes(out, block, static_cast<size_t>(n));
    *out_len = static_cast<size_t>(n);
  }
  sodium_memzero(block, sizeof block);
  wipe();
  return n >= 0 ? Error::ok : Error::bad_padding;
}

void CbcDecryptor::wipe() noexcept { sodium_memzero(this, sizeof *this); }

Error cbc_decrypt(const uint8_t key[kKeyBytes], const uint8_t iv[kIvBytes], const uint8_t* in, size_t len,
                  uint8_t* out, size_t* out_len) noexcept {
  *out_len = 0;
  if (len == 0 || len % kBlockBytes != 0) return Error::data_length;
  CbcDecryptor d;
  d.init(key, iv);
  const size_t written = d.update(in, len, out);
  size_t tail = 0;
  const Error e = d.final(out + written, &tail);
  if (e != Error::ok) {
    sodium_memzero(out, len);
    return e;
  }
  *out_len = written + tail;
  return Error::ok;
}

// --- GCM ---------------------------------------------------------------------------------------------

Error Gcm::init(const uint8_t key_bytes[kKeyBytes], std::span<const uint8_t> iv, bool encrypt) noexcept {
  if (iv.empty()) return Error::iv_length;
  const Key& key = ctr.key;
  expand_key(ctr.key, key_bytes);
  // H = AES_K(0^128) and the tag mask AES_K(J0). With the usual 12-byte IV, J0 is known up front and
  // both blocks go through the block layer in one batch (a batch costs the same for 1 block or 8).
  uint8_t blocks[2 * kBlockBytes] = {};
  uint8_t* j0 = blocks + kBlockBytes;
  if (iv.size() == kGcmNonceBytes) {
    std::memcpy(j0, iv.data(), kGcmNonceBytes);
    j0[kBlockBytes - 1] = 1;
    uint8_t out[2 * kBlockBytes];
    encrypt_blocks(key, blocks, out, 2);
    ghash::init(hash, out);
    std::memcpy(tag_mask, out + kBlockBytes, kBlockBytes);
    sodium_memzero(out, sizeof out);
  } else {
    // J0 = GHASH_H(IV || 0-pad || [0]_64 || [len(IV) in bits]_64)
    uint8_t h[kBlockBytes] = {};
    encrypt_blocks(key, h, h, 1);
    ghash::init(hash, h);
    sodium_memzero(h, sizeof h);
    ghash::update(hash, iv.data(), iv.size());
    ghash::update_lengths(hash, 0, iv.size());
    ghash::digest(hash, j0);
    hash.y_hi = hash.y_lo = 0;
    encrypt_blocks(key, j0, tag_mask, 1);
  }
  increment(j0, /*inc32=*/true);
  std::memcpy(ctr.counter, j0, kBlockBytes);
  ctr.used = kBlockBytes;
  ctr.inc32 = true;

  partial_len = 0;
  phase = kAad;
  encrypting = encrypt;
  aad_len = data_len = 0;
  return Error::ok;
}

void Gcm::absorb(const uint8_t* data, size_t len) noexcept {
  if (partial_len > 0) {
    const size_t take = std::min<size_t>(kBlockBytes - partial_len, len);
    copy_bytes(partial + partial_len, data, take);
    partial_len = static_cast<uint8_t>(partial_len + take);
    data += take;
    len -= take;
    if (partial_len < kBlockBytes) return;
    ghash::update(hash, partial, kBlockBytes);
    partial_len = 0;
  }
  const size_t whole = len / kBlockBytes * kBlockBytes;
  ghash::update(hash, data, whole);
  copy_bytes(partial, data + whole, len - whole);
  partial_len = static_cast<uint8_t>(len - whole);
}

void Gcm::flush_partial() noexcept {
  ghash::update(hash, partial, partial_len);  // zero-padded by update()
  partial_len = 0;
}

Error Gcm::aad(std::span<const uint8_t> data) noexcept {
  if (phase != kAad) return Error::stream_state;
  absorb(data.data(), data.size());
  aad_len += data.size();
  return Error::ok;
}

Error Gcm::update(const uint8_t* in, uint8_t* out, size_t len) noexcept {
  if (phase == kDone) return Error::stream_state;
  if (phase == kAad) {
    flush_partial();
    phase = kData;
  }
  if (static_cast<uint64_t>(len) > kGcmMaxData - data_len) return Error::data_length;
  if (encrypting) {
    ctr.update(in, out, len);
    absorb(out, len);
  } else {
    absorb(in, len);  // before decrypting: in and out may be the same buffer
    ctr.update(in, out, len);
  }
  data_len += len;
  return Error::ok;
}

Error Gcm::final_tag(uint8_t tag[kGcmTagBytes]) noexcept {
  if (phase == kDone || !encrypting) return Error::stream_state;
  flush_partial();
  ghash::update_lengths(hash, aad_len, data_len);
  ghash::digest(hash, tag);
  xor_into(tag, tag, tag_mask, kGcmTagBytes);
  wipe();
  return Error::ok;
}

Error Gcm::final_verify(const uint8_t tag[kGcmTagBytes]) noexcept {
  if (phase == kDone || encrypting) return Error::stream_state;
  flush_partial();
  ghash::update_lengths(hash, aad_len, data_len);
  uint8_t expected[kGcmTagBytes];
  ghash::digest(hash, expected);
  xor_into(expected, expected, tag_mask, kGcmTagBytes);
  const bool ok = ct::declassify(hash::equal(expected, tag, kGcmTagBytes));  // the verdict is public
  sodium_memzero(expected, sizeof expected);
  wipe();
  return ok ? Error::ok : Error::auth_tag;
}

Error Gcm::authenticate_only(const uint8_t* in, size_t len) noexcept {
  if (phase == kDone || encrypting) return Error::stream_state;
  if (phase == kAad) {
    flush_partial();
    phase = kData;
  }
  if (static_cast<uint64_t>(len) > kGcmMaxData - data_len) return Error::data_length;
  absorb(in, len);
  data_len += len;
  return Error::ok;
}

void Gcm::wipe() noexcept {
  sodium_memzero(this, sizeof *this);
  phase = kDone;
}

void GcmKey::init(const uint8_t key_bytes[kKeyBytes]) noexcept {
  expand_key(key, key_bytes);
  std::memset(h, 0, sizeof h);
  encrypt_blocks(key, h, h, 1);
}

void GcmKey::wipe() noexcept { sodium_memzero(this, sizeof *this); }

namespace {

// The one-shot seal and open; mask: AES_K(J0) when the caller has it already, else null.
Error seal_one_shot(const GcmKey& key, std::span<const uint8_t> iv, std::span<const uint8_t> aad, const uint8_t* in,
                    size_t len, uint8_t* out, const uint8_t* mask) {
  if (static_cast<uint64_t>(len) > kGcmMaxData) return Error::data_length;  // reachable on 64-bit hosts only
  uint8_t counter[kBlockBytes];
  gcm_j0(key, iv, counter);
  uint8_t blocks[kChunkBlocks * kBlockBytes];
  const size_t first = gcm_first_batch(key.key, counter, len, mask, blocks);
  xor_into(out, in, blocks + kBlockBytes, first);
  uint8_t tail[kBlockBytes];
  uint8_t used = kBlockBytes;
  ctr_blocks(key.key, counter, /*inc32=*/true, in + first, out + first, len - first, tail, used);
  gcm_tag(key, aad, out, len, blocks, out + len);
  sodium_memzero(blocks, sizeof blocks);
  sodium_memzero(tail, sizeof tail);
  return Error::ok;
}

Error open_one_shot(const GcmKey& key, std::span<const uint8_t> iv, std::span<const uint8_t> aad, const uint8_t* in,
                    size_t len, uint8_t* out, const uint8_t* mask) {
  const size_t n = len - kGcmTagBytes;  // len >= 16, checked by the callers
  if (static_cast<uint64_t>(n) > kGcmMaxData) return Error::data_length;  // reachable on 64-bit hosts only
  uint8_t counter[kBlockBytes];
  gcm_j0(key, iv, counter);
  // The mask and the first keystream come in one batch, but no plaintext is written until the tag
  // over the whole ciphertext has been checked: a forgery never yields a byte of it.
  uint8_t blocks[kChunkBlocks * kBlockBytes];
  const size_t first = gcm_first_batch(key.key, counter, n, mask, blocks);
  uint8_t expected[kGcmTagBytes];
  gcm_tag(key, aad, in, n, blocks, expected);
  const bool ok = ct::declassify(hash::equal(expected, in + n, kGcmTagBytes));  // the verdict is public
  sodium_memzero(expected, sizeof expected);
  if (!ok) {
    sodium_memzero(blocks, sizeof blocks);
    return Error::auth_tag;
  }
  xor_into(out, in, blocks + kBlockBytes, first);
  uint8_t tail[kBlockBytes];
  uint8_t used = kBlockBytes;
  ctr_blocks(key.key, counter, /*inc32=*/true, in + first, out + first, n - first, tail, used);
  sodium_memzero(blocks, sizeof blocks);
  sodium_memzero(tail, sizeof tail);
  return Error::ok;
}

// A key used once: with a 12-byte IV, J0 is known before H, so H = AES_K(0^128) and the mask AES_K(J0)
// share one batch (a batch costs the same for 1 block or 8) and the data batches carry data only.
// Returns whether mask was filled.
bool one_use_key(const uint8_t key_bytes[kKeyBytes], std::span<const uint8_t> iv, GcmKey& k,
                 uint8_t mask[kBlockBytes]) {
  if (iv.size() != kGcmNonceBytes) {
    k.init(key_bytes);
    return false;
  }
  expand_key(k.key, key_bytes);
  uint8_t blocks[2 * kBlockBytes] = {};
  std::memcpy(blocks + kBlockBytes, iv.data(), kGcmNonceBytes);
  blocks[2 * kBlockBytes - 1] = 1;
  encrypt_blocks(k.key, blocks, blocks, 2);
  std::memcpy(k.h, blocks, kBlockBytes);
  std::memcpy(mask, blocks + kBlockBytes, kBlockBytes);
  sodium_memzero(blocks, sizeof blocks);
  return true;
}

}  // namespace

Error gcm_seal(const GcmKey& key, std::span<const uint8_t> iv, std::span<const uint8_t> aad, const uint8_t* in,
               size_t len, uint8_t* out) noexcept {
  if (iv.empty()) return Error::iv_length;
  return seal_one_shot(key, iv, aad, in, len, out, nullptr);
}

Error gcm_open(const GcmKey& key, std::span<const uint8_t> iv, std::span<const uint8_t> aad, const uint8_t* in,
               size_t len, uint8_t* out) noexcept {
  if (len < kGcmTagBytes) return Error::data_length;
  if (static_cast<uint64_t>(len - kGcmTagBytes) > kGcmMaxData) return Error::data_length;  // 64-bit hosts only
  if (iv.empty()) return Error::iv_length;
  return open_one_shot(key, iv, aad, in, len, out, nullptr);
}

Error gcm_seal(const uint8_t key[kKeyBytes], std::span<const uint8_t> iv, std::span<const uint8_t> aad,
               const uint8_t* in, size_t len, uint8_t* out) noexcept {
  if (iv.empty()) return Error::iv_length;
  GcmKey k;
  uint8_t mask[kBlockBytes];
  const bool have_mask = one_use_key(key, iv, k, mask);
  const Error e = seal_one_shot(k, iv, aad, in, len, out, have_mask ? mask : nullptr);
  k.wipe();
  sodium_memzero(mask, sizeof mask);
  return e;
}

Error gcm_open(const uint8_t key[kKeyBytes], std::span<const uint8_t> iv, std::span<const uint8_t> aad,
               const uint8_t* in, size_t len, uint8_t* out) noexcept {
  if (len < kGcmTagBytes) return Error::data_length;
  if (static_cast<uint64_t>(len - kGcmTagBytes) > kGcmMaxData) return Error::data_length;  // 64-bit hosts only
  if (iv.empty()) return Error::iv_length;
  GcmKey k;
  uint8_t mask[kBlockBytes];
  const bool have_mask = one_use_key(key, iv, k, mask);
  const Error e = open_one_shot(k, iv, aad, in, len, out, have_mask ? mask : nullptr);
  k.wipe();
  sodium_memzero(mask, sizeof mask);
  return e;
}

}  // namespace wacore::aes
