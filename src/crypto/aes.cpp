#include "crypto/aes.h"

#include <sodium.h>

#include <bit>
#include <cstring>

#include "crypto/aes_bitslice.h"

namespace wacore::aes {
namespace {

namespace bs = bitslice;

// The word type of this build's rounds (kParallelBlocks in aes.h says the same thing).
#if defined(__wasm_simd128__)
using BuildWord = bs::V128;
#else
using BuildWord = uint64_t;
#endif
static_assert(bs::kBatchBlocks<BuildWord> == kParallelBlocks);
static_assert(bs::kBatchBlocks<uint64_t> == detail::kBatchU64);
static_assert(bs::kBatchBlocks<bs::Pair> == detail::kBatchPair);

// Words of the FIPS-197 key schedule for AES-256: 4 per round key, 15 round keys.
constexpr size_t kScheduleWords = 4 * (kRounds + 1);
constexpr size_t kKeyWords = kKeyBytes / 4;
// Round constants x^(i-1) in GF(2^8), for schedule words 8, 16, ..., 56.
constexpr uint8_t kRcon[] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40};

enum class Direction { encrypt, decrypt };

// Stack scrubbed after each call natively: more than the frames of run_batches and sub_word, where
// the compiler spills planes and temporaries (g++ -O2 -fstack-usage: at most 552 bytes). Not in
// wasm: there the planes are locals, which the engine spills to its own stack out of reach of
// linear memory, and these functions take no linear-memory stack at all (no __stack_pointer use at
// -O3), so the scrub would only cost time (about 10% of a one-batch call).
#if defined(__wasm__)
constexpr size_t kStackScrubBytes = 0;
#else
constexpr size_t kStackScrubBytes = 2048;
#endif

void scrub_stack() noexcept {
  if constexpr (kStackScrubBytes > 0) sodium_stackzero(kStackScrubBytes);
}

// `count` whole batches of word type W from `in` to `out`. Each batch is read completely before any
// of it is written, which is what makes in == out safe.
//
// The planes are plain locals whose address never escapes, so they live in registers (wasm locals)
// across all 14 rounds. Wiping them with sodium_memzero would take their address and keep them in
// memory at every round (linear memory, in wasm): slower, and it would put the state where a memory
// dump can see it. Instead run_blocks scrubs the stack this function used (natively) on return.
template <Direction D, class W>
[[gnu::noinline]] void run_batches(const Key& k, const uint8_t* in, uint8_t* out,
                                   size_t count) noexcept {
  constexpr size_t kBatchBytes = bs::kBatchBlocks<W> * kBlockBytes;
  for (size_t i = 0; i < count; i++, in += kBatchBytes, out += kBatchBytes) {
    W q[kPlanes];
    bs::load_state(in, q);
    if constexpr (D == Direction::encrypt) {
      bs::encrypt_state(k, q);
    } else {
      bs::decrypt_state(k, q);
    }
    bs::store_state(q, out);
  }
}

// ECB over n blocks with word type W: whole batches straight from `in` to `out`, then the remaining
// blocks through a zero-padded local batch.
template <Direction D, class W>
void run_blocks(const Key& k, const uint8_t* in, uint8_t* out, size_t n) noexcept {
  constexpr size_t kBatch = bs::kBatchBlocks<W>;
  const size_t whole = n / kBatch;
  const size_t done_bytes = whole * kBatch * kBlockBytes;
  if (whole > 0) run_batches<D, W>(k, in, out, whole);
  if (const size_t tail_bytes = (n % kBatch) * kBlockBytes; tail_bytes > 0) {
    uint8_t pad[kBatch * kBlockBytes] = {};
    std::memcpy(pad, in + done_bytes, tail_bytes);
    run_batches<D, W>(k, pad, pad, 1);
    std::memcpy(out + done_bytes, pad, tail_bytes);
    sodium_memzero(pad, sizeof pad);
  }
  scrub_stack();
}

// FIPS-197 SubBytes (or InvSubBytes) on every byte of one batch of word type W.
template <class W>
void sub_bytes(uint8_t* bytes) noexcept {
  W q[kPlanes];
  bs::load_state(bytes, q);
  bs::sbox(q);
  bs::add_sbox_constant(q);  // the circuit leaves 0x63 out
  bs::store_state(q, bytes);
  sodium_memzero(q, sizeof q);
}

template <class W>
void inv_sub_bytes(uint8_t* bytes) noexcept {
  W q[kPlanes];
  bs::load_state(bytes, q);
  bs::add_sbox_constant(q);  // the circuit expects its input plus 0x63
  bs::inv_sbox(q);
  bs::store_state(q, bytes);
  sodium_memzero(q, sizeof q);
}

// SubWord of FIPS-197 on the 4 bytes of `word` (little-endian), through the bitsliced S-box (a
// table would leak the key through the cache). Each byte gets its own bit position (8j in every
// plane), so the transposition is a shift and a mask per plane; the other positions compute junk,
// masked away.
uint32_t sub_word(uint32_t word) noexcept {
  constexpr uint64_t kByteLowBits = 0x0101010101010101ull;
  uint64_t q[kPlanes];
  bs::unrolled<kPlanes>([&](auto b) WACORE_AES_INLINE_LAMBDA {
    q[b] = (word >> b) & kByteLowBits;  // bit b of byte j at bit 8j
  });
  bs::sbox(q);
  bs::add_sbox_constant(q);
  uint64_t out = 0;
  bs::unrolled<kPlanes>([&](auto b) WACORE_AES_INLINE_LAMBDA {
    out |= (q[b] & kByteLowBits) << b;
  });
  return static_cast<uint32_t>(out);
}

// out = ShiftRows^n(in) on one 16-byte state in FIPS-197 order (byte 4c + r is row r, column c):
// row r moves n*r columns to the left. Positions only, no data-dependent access.
void shift_rows_bytes(const uint8_t in[kBlockBytes], uint8_t out[kBlockBytes],
                      unsigned n) noexcept {
  for (unsigned c = 0; c < 4; c++) {
    for (unsigned r = 0; r < 4; r++) out[4 * c + r] = in[4 * ((c + n * r) % 4) + r];
  }
}

uint32_t load_le32(const uint8_t* p) noexcept {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

}  // namespace

void expand_key(Key& k, const uint8_t key[kKeyBytes]) noexcept {
  // FIPS-197 KeyExpansion, words as little-endian uint32_t: byte 0 of a word is its low byte, so
  // RotWord is a rotation right by 8 and Rcon goes into the low byte.
  uint32_t w[kScheduleWords];
  for (size_t i = 0; i < kKeyWords; i++) w[i] = load_le32(key + 4 * i);
  for (size_t i = kKeyWords; i < kScheduleWords; i++) {
    uint32_t t = w[i - 1];
    if (i % kKeyWords == 0) {
      t = sub_word(std::rotr(t, 8)) ^ kRcon[i / kKeyWords - 1];
    } else if (i % kKeyWords == 4) {
      t = sub_word(t);
    }
    w[i] = w[i - kKeyWords] ^ t;
  }
  static_assert(std::endian::native == std::endian::little);
  const auto* schedule = reinterpret_cast<const uint8_t*>(w);

  // Round keys four at a time: round key r, put in the byte order SR^-(r mod 4) gives
  // (SR^(4 - r mod 4)), goes in as block r mod 4 of a batch, through the same transposition as the
  // state; then each block's bit is copied to all four of its nibble: x >> k picks block k's bits,
  // and (bits << 4) - bits is 15 * bits, 0xF in every nibble holding a one.
  constexpr uint64_t kBlock0 = 0x1111111111111111ull;
  uint8_t batch[detail::kBatchU64 * kBlockBytes];
  uint64_t planes[kPlanes];
  for (int first = 0; first <= kRounds; first += 4) {
    std::memset(batch, 0, sizeof batch);
    for (int r = first; r < first + 4 && r <= kRounds; r++) {
      const unsigned inverse_shifts = (4 - r % 4) % 4;
      shift_rows_bytes(schedule + kBlockBytes * r, batch + kBlockBytes * (r - first),
                       inverse_shifts);
    }
    bs::load_state(batch, planes);
    for (int r = first; r < first + 4 && r <= kRounds; r++) {
      const unsigned slot = static_cast<unsigned>(r - first);
      for (size_t b = 0; b < kPlanes; b++) {
        const uint64_t bits = (planes[b] >> slot) & kBlock0;
        k.rk[r][b] = (bits << 4) - bits;
      }
      // The S-box circuits leave out 0x63 (see aes_bitslice.h); every round key after the first
      // adds it back.
      if (r > 0) bs::add_sbox_constant(k.rk[r]);
    }
  }
  sodium_memzero(w, sizeof w);
  sodium_memzero(batch, sizeof batch);
  sodium_memzero(planes, sizeof planes);
  scrub_stack();  // sub_word's planes
}

void wipe(Key& k) noexcept { sodium_memzero(&k, sizeof k); }

void encrypt_blocks(const Key& k, const uint8_t* in, uint8_t* out, size_t nblocks) noexcept {
  run_blocks<Direction::encrypt, BuildWord>(k, in, out, nblocks);
}

void decrypt_blocks(const Key& k, const uint8_t* in, uint8_t* out, size_t nblocks) noexcept {
  run_blocks<Direction::decrypt, BuildWord>(k, in, out, nblocks);
}

namespace detail {

void encrypt_blocks_u64(const Key& k, const uint8_t* in, uint8_t* out, size_t n) noexcept {
  run_blocks<Direction::encrypt, uint64_t>(k, in, out, n);
}
void decrypt_blocks_u64(const Key& k, const uint8_t* in, uint8_t* out, size_t n) noexcept {
  run_blocks<Direction::decrypt, uint64_t>(k, in, out, n);
}
void encrypt_blocks_pair(const Key& k, const uint8_t* in, uint8_t* out, size_t n) noexcept {
  run_blocks<Direction::encrypt, bs::Pair>(k, in, out, n);
}
void decrypt_blocks_pair(const Key& k, const uint8_t* in, uint8_t* out, size_t n) noexcept {
  run_blocks<Direction::decrypt, bs::Pair>(k, in, out, n);
}

void sub_bytes_u64(uint8_t bytes[kBlockBytes * kBatchU64]) noexcept { sub_bytes<uint64_t>(bytes); }
void inv_sub_bytes_u64(uint8_t bytes[kBlockBytes * kBatchU64]) noexcept {
  inv_sub_bytes<uint64_t>(bytes);
}
void sub_bytes_pair(uint8_t bytes[kBlockBytes * kBatchPair]) noexcept {
  sub_bytes<bs::Pair>(bytes);
}
void inv_sub_bytes_pair(uint8_t bytes[kBlockBytes * kBatchPair]) noexcept {
  inv_sub_bytes<bs::Pair>(bytes);
}

}  // namespace detail
}  // namespace wacore::aes
