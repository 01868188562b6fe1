#include "signal/sender_keys.h"

#include <sodium.h>

#include <cstring>

#include "common/bytes.h"
#include "common/random.h"
#include "crypto/aes_modes.h"
#include "crypto/curve25519.h"
#include "crypto/hash.h"

namespace wacore::signal {
namespace {

constexpr std::string_view kInfoGroup = "WhisperGroup";

void wipe_state(SenderKeyState& s) noexcept {
  sodium_memzero(s.chain_key.data(), s.chain_key.size());
  sodium_memzero(s.signing_private.data(), s.signing_private.size());
  for (SenderMessageKey& mk : s.skipped) sodium_memzero(&mk, sizeof mk);
}

// Wipes a working copy of a record unless it was committed.
struct Scratch {
  SenderKeyRecord r;
  bool committed = false;
  ~Scratch() {
    if (!committed) wipe_sender_key_record(r);
  }
};

void commit(Scratch& work, SenderKeyRecord& record) {
  wipe_sender_key_record(record);
  record = std::move(work.r);
  work.committed = true;
}

// Evicts the oldest skipped keys beyond kMaxSenderMessageKeys.
void trim(SenderKeyState& s) {
  if (s.skipped.size() <= kMaxSenderMessageKeys) return;
  const size_t drop = s.skipped.size() - kMaxSenderMessageKeys;
  for (size_t i = 0; i < drop; i++) sodium_memzero(&s.skipped[i], sizeof(SenderMessageKey));
  s.skipped.erase(s.skipped.begin(), s.skipped.begin() + static_cast<ptrdiff_t>(drop));
}

// The seed at the chain's iteration, and the chain advanced by one.
void step(SenderKeyState& s, Key32& seed) {
  Key32 next;
  chain_step(s.chain_key, seed, next);
  s.chain_key = next;
  s.iteration++;
  sodium_memzero(next.data(), next.size());
}

// The first state (oldest first, as Baileys looks it up) with this key id.
SenderKeyState* find_state(SenderKeyRecord& r, uint32_t key_id) {
  for (SenderKeyState& s : r.states)
    if (s.key_id == key_id) return &s;
  return nullptr;
}

bool aes_cbc_decrypt(const Key32& key, const std::array<uint8_t, 16>& iv, std::span<const uint8_t> in,
                     std::vector<uint8_t>& out) {
  if (in.empty() || in.size() % 16 != 0) return false;
  out.resize(in.size());
  size_t n = 0;
  if (aes::cbc_decrypt(key.data(), iv.data(), in.data(), in.size(), out.data(), &n) != Error::ok) {
    out.clear();
    return false;
  }
  out.resize(n);
  return true;
}

}  // namespace

void sender_message_keys(const Key32& seed, std::array<uint8_t, 16>& iv, Key32& cipher_key) {
  uint8_t okm[48];
  (void)hash::hkdf(seed, {}, {reinterpret_cast<const uint8_t*>(kInfoGroup.data()), kInfoGroup.size()}, okm);
  std::memcpy(iv.data(), okm, 16);
  std::memcpy(cipher_key.data(), okm + 16, 32);
  sodium_memzero(okm, sizeof okm);
}

void wipe_sender_key_record(SenderKeyRecord& record) noexcept {
  for (SenderKeyState& s : record.states) wipe_state(s);
}

void enforce_sender_key_limits(SenderKeyRecord& record) {
  while (record.states.size() > kMaxSenderKeyStates) {
    wipe_state(record.states.front());
    record.states.erase(record.states.begin());
  }
  for (SenderKeyState& s : record.states) trim(s);
}

Error create_sender_key(SenderKeyRecord& record, SenderKeyDistribution& out) {
  if (record.states.empty()) {
    Scratch work;
    SenderKeyState& s = work.r.states.emplace_back();
    uint8_t id[4];
    if (Error e = random_bytes(id, sizeof id); e != Error::ok) return e;
    // A 31-bit id, as libsignal and Baileys choose it.
    s.key_id = (static_cast<uint32_t>(id[0]) | static_cast<uint32_t>(id[1]) << 8 | static_cast<uint32_t>(id[2]) << 16 |
                static_cast<uint32_t>(id[3]) << 24) & 0x7FFFFFFFu;
    if (Error e = random_bytes(s.chain_key.data(), s.chain_key.size()); e != Error::ok) return e;
    s.signing_public[0] = curve::kDjbType;
    if (Error e = curve::generate_key_pair(s.signing_private.data(), s.signing_public.data() + 1); e != Error::ok) {
      return e;
    }
    s.has_signing_private = true;
    commit(work, record);
  }
  const SenderKeyState& s = record.states.back();
  out.key_id = s.key_id;
  out.iteration = s.iteration;
  out.chain_key = s.chain_key;
  out.signing_key = s.signing_public;
  return Error::ok;
}

void process_distribution(SenderKeyRecord& record, const SenderKeyDistribution& d) {
  // libsignal's rule: a state of the same chain (key id and signing key) is kept with its progress
  // and skipped keys, so re-processing a distribution message loses nothing; any other state with
  // this key id is dropped. The state then becomes the newest.
  SenderKeyState kept;
  bool have = false;
  for (size_t i = 0; i < record.states.size();) {
    SenderKeyState& s = record.states[i];
    if (s.key_id != d.key_id) {
      i++;
      continue;
    }
    if (!have && s.signing_public == d.signing_key) {
      kept = std::move(s);
      have = true;
    } else {
      wipe_state(s);
    }
    record.states.erase(record.states.begin() + static_cast<ptrdiff_t>(i));
  }
  if (!have) {
    kept.key_id = d.key_id;
    kept.iteration = d.iteration;
    kept.chain_key = d.chain_key;
    kept.signing_public = d.signing_key;
  }
  record.states.push_back(std::move(kept));
  wipe_state(kept);  // the move copied its key arrays: this copy still holds them
  while (record.states.size() > kMaxSenderKeyStates) {
    wipe_state(record.states.front());
    record.states.erase(record.states.begin());
  }
}

Error group_encrypt(SenderKeyRecord& record, std::span<const uint8_t> plaintext, std::vector<uint8_t>& out) {
  if (record.states.empty() || !record.states.back().has_signing_private) return Error::no_session;
  if (record.states.back().iteration == UINT32_MAX) return Error::too_far_ahead;
  Scratch work;
  work.r = record;
  SenderKeyState& s = work.r.states.back();
  const uint32_t iteration = s.iteration;
  Key32 seed, key;
  std::array<uint8_t, 16> iv;
  step(s, seed);
  sender_message_keys(seed, iv, key);
  sodium_memzero(seed.data(), seed.size());
  std::vector<uint8_t> ct(aes::cbc_encrypted_size(plaintext.size()));
  aes::cbc_encrypt(key.data(), iv.data(), nonnull(plaintext), plaintext.size(), ct.data());
  sodium_memzero(key.data(), key.size());
  std::vector<uint8_t> msg;
  encode_sender_key_message(s.key_id, iteration, ct, msg);
  uint8_t sig[kSenderSignatureBytes];
  if (Error e = curve::sign(s.signing_private.data(), msg, sig); e != Error::ok) return e;
  msg.insert(msg.end(), sig, sig + sizeof sig);
  out = std::move(msg);
  commit(work, record);
  return Error::ok;
}

Error group_decrypt(SenderKeyRecord& record, std::span<const uint8_t> message,
                    std::vector<uint8_t>& plaintext) {
  SenderKeyMessage m;
  if (Error e = parse_sender_key_message(message, m); e != Error::ok) return e;
  Scratch work;
  work.r = record;
  SenderKeyState* s = find_state(work.r, m.key_id);
  if (s == nullptr) return Error::no_sender_key;
  if (!curve::verify(s->signing_public.data() + 1, m.signed_part, m.signature.data())) return Error::bad_signature;
  Key32 seed;
  if (m.iteration < s->iteration) {
    size_t i = 0;
    while (i < s->skipped.size() && s->skipped[i].iteration != m.iteration) i++;
    if (i == s->skipped.size()) return Error::duplicate_message;
    seed = s->skipped[i].seed;
    sodium_memzero(&s->skipped[i], sizeof(SenderMessageKey));
    s->skipped.erase(s->skipped.begin() + static_cast<ptrdiff_t>(i));
  } else {
    if (m.iteration - s->iteration > kMaxSenderForwardJump) return Error::too_far_ahead;
    if (m.iteration == UINT32_MAX) return Error::invalid_message;
    // Keys more than kMaxSenderMessageKeys behind this message would be evicted at once: they are
    // stepped over without being stored.
    const uint64_t keep_from = m.iteration >= kMaxSenderMessageKeys ? m.iteration - kMaxSenderMessageKeys : 0;
    while (s->iteration < m.iteration) {
      SenderMessageKey mk;
      mk.iteration = s->iteration;
      step(*s, mk.seed);
      if (mk.iteration >= keep_from) s->skipped.push_back(mk);
      sodium_memzero(&mk, sizeof mk);
    }
    trim(*s);
    step(*s, seed);
  }
  Key32 key;
  std::array<uint8_t, 16> iv;
  sender_message_keys(seed, iv, key);
  sodium_memzero(seed.data(), seed.size());
  std::vector<uint8_t> pt;
  const bool ok = aes_cbc_decrypt(key, iv, m.ciphertext, pt);
  sodium_memzero(key.data(), key.size());
  if (!ok) return Error::invalid_message;
  if (!plaintext.empty()) sodium_memzero(plaintext.data(), plaintext.size());
  plaintext = std::move(pt);
  commit(work, record);
  return Error::ok;
}

}  // namespace wacore::signal
