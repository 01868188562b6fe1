#include "signal/session.h"

#include <sodium.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "common/bytes.h"
#include "crypto/aes_modes.h"
#include "crypto/curve25519.h"
#include "crypto/hash.h"

namespace wacore::signal {
namespace {

constexpr std::string_view kInfoText = "WhisperText";
constexpr std::string_view kInfoRatchet = "WhisperRatchet";
constexpr std::string_view kInfoMessageKeys = "WhisperMessageKeys";

hash::Bytes info(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

template <typename T>
void wipe_bytes(T& x) noexcept {
  sodium_memzero(x.data(), x.size());
}

void wipe(Chain& c) noexcept {
  wipe_bytes(c.key);
  for (MessageKey& mk : c.skipped) sodium_memzero(&mk, sizeof mk);
}

void wipe(Session& s) noexcept {
  wipe_bytes(s.ratchet.priv);
  wipe_bytes(s.root_key);
  wipe(s.sender);
  for (Chain& c : s.receivers) wipe(c);
}

// A working copy of a session, wiped when it goes out of scope, committed or not: moving a
// Session into a record copies its key arrays (arrays do not move), so the copy left here still
// holds the root key and the ratchet's private key.
struct Scratch {
  Session s;
  ~Scratch() { wipe(s); }
};

Error dh(const PublicKey& theirs, const Key32& ours, uint8_t out[32]) {
  if (theirs[0] != curve::kDjbType) return Error::key_type;
  return curve::agreement(theirs.data() + 1, ours.data(), out);
}

Error new_key_pair(KeyPair& kp) {
  kp.pub[0] = curve::kDjbType;
  return curve::generate_key_pair(kp.priv.data(), kp.pub.data() + 1);
}

// HKDF(secret, salt = root key, "WhisperRatchet") -> new root key, new chain.
Error ratchet_step(Session& s, const PublicKey& their_key, const Key32& our_priv, Chain& chain) {
  uint8_t shared[32];
  if (Error e = dh(their_key, our_priv, shared); e != Error::ok) return e;
  uint8_t okm[64];
  (void)hash::hkdf(shared, s.root_key, info(kInfoRatchet), okm);
  std::memcpy(s.root_key.data(), okm, 32);
  std::memcpy(chain.key.data(), okm + 32, 32);
  chain.has_key = true;
  chain.counter = -1;
  sodium_memzero(shared, sizeof shared);
  sodium_memzero(okm, sizeof okm);
  return Error::ok;
}

bool same_key(const PublicKey& a, const PublicKey& b) { return std::memcmp(a.data(), b.data(), a.size()) == 0; }

Chain* find_receiver(Session& s, const PublicKey& key) {
  for (Chain& c : s.receivers)
    if (same_key(c.ratchet_key, key)) return &c;
  return nullptr;
}

// Derives message keys up to and including `counter`, keeping their seeds (those more than
// kMaxSkippedKeysPerChain behind `counter` are never stored; trim() caps the rest). At most
// kMaxForwardJump keys may be skipped (Error::too_far_ahead, libsignal's rule); a closed chain
// cannot advance (Error::invalid_message).
Error fill(Chain& c, int64_t counter) {
  if (c.counter >= counter) return Error::ok;
  if (counter - (c.counter + 1) > static_cast<int64_t>(kMaxForwardJump)) return Error::too_far_ahead;
  if (!c.has_key) return Error::invalid_message;
  const int64_t keep_from = counter - static_cast<int64_t>(kMaxSkippedKeysPerChain);
  while (c.counter < counter) {
    Key32 seed, next;
    chain_step(c.key, seed, next);
    c.key = next;
    c.counter++;
    if (c.counter >= keep_from) {
      MessageKey& mk = c.skipped.emplace_back();
      mk.index = static_cast<uint32_t>(c.counter);
      mk.seed = seed;
    }
    wipe_bytes(seed);
    wipe_bytes(next);
  }
  return Error::ok;
}

// Evicts the oldest skipped keys beyond kMaxSkippedKeysPerChain.
void trim(Chain& c) {
  if (c.skipped.size() <= kMaxSkippedKeysPerChain) return;
  const size_t drop = c.skipped.size() - kMaxSkippedKeysPerChain;
  for (size_t i = 0; i < drop; i++) sodium_memzero(&c.skipped[i], sizeof(MessageKey));
  c.skipped.erase(c.skipped.begin(), c.skipped.begin() + static_cast<ptrdiff_t>(drop));
}

// libsignal-node's maybeStepRatchet: a new remote ratchet key closes the previous receiving chain
// (after deriving its keys up to `previous_counter`), opens a receiving chain for the new key, and
// replaces our ratchet key pair and sending chain.
Error maybe_step_ratchet(Session& s, const PublicKey& remote, uint32_t previous_counter) {
  if (find_receiver(s, remote) != nullptr) return Error::ok;
  if (s.has_sender && same_key(s.sender.ratchet_key, remote)) return Error::invalid_message;
  if (Chain* prev = find_receiver(s, s.last_remote_ratchet); prev != nullptr) {
    // libsignal-node writes its chain counter, -1 for a chain that never sent, as a uint32: the
    // peer sent nothing on that chain, so there is nothing to derive (docs/protocol.md).
    const int64_t sent_up_to = previous_counter == UINT32_MAX ? -1 : int64_t{previous_counter};
    if (Error e = fill(*prev, sent_up_to); e != Error::ok) return e;
    trim(*prev);
    wipe_bytes(prev->key);
    prev->has_key = false;
  }
  Chain receiving;
  receiving.ratchet_key = remote;
  if (Error e = ratchet_step(s, remote, s.ratchet.priv, receiving); e != Error::ok) {
    return e == Error::low_order_point || e == Error::key_type ? Error::invalid_message : e;
  }
  s.receivers.push_back(std::move(receiving));
  wipe(receiving);  // the move copied its key array: this copy still holds the chain key
  while (s.receivers.size() > kMaxReceiverChains) {
    wipe(s.receivers.front());
    s.receivers.erase(s.receivers.begin());
  }
  if (s.has_sender) {
    s.previous_counter = s.sender.counter;
    wipe(s.sender);
    s.sender = Chain{};
    s.has_sender = false;
  }
  wipe_bytes(s.ratchet.priv);
  if (Error e = new_key_pair(s.ratchet); e != Error::ok) return e;
  s.sender.ratchet_key = s.ratchet.pub;
  if (Error e = ratchet_step(s, remote, s.ratchet.priv, s.sender); e != Error::ok) return e;
  s.has_sender = true;
  s.last_remote_ratchet = remote;
  return Error::ok;
}

// WhisperMessage MAC: HMAC-SHA256(macKey, sender identity || receiver identity || message)[0:8].
void whisper_mac(const Key32& mac_key, const PublicKey& sender, const PublicKey& receiver,
                 std::span<const uint8_t> signed_part, uint8_t out[32]) {
  crypto_auth_hmacsha256_state st;
  crypto_auth_hmacsha256_init(&st, mac_key.data(), mac_key.size());
  crypto_auth_hmacsha256_update(&st, sender.data(), sender.size());
  crypto_auth_hmacsha256_update(&st, receiver.data(), receiver.size());
  crypto_auth_hmacsha256_update(&st, nonnull(signed_part), signed_part.size());
  crypto_auth_hmacsha256_final(&st, out);
  sodium_memzero(&st, sizeof st);
}

// Checks the message's MAC and decrypts it with a message key's derived keys; on success the
// session's pending pre-key is settled and it counts as used.
Error open_message(Session& s, const PublicKey& our_identity, const WhisperMessage& m, const MessageKey& keys,
                   int64_t now_ms, std::vector<uint8_t>& plaintext) {
  uint8_t mac[32];
  whisper_mac(keys.mac_key, s.remote_identity, our_identity, m.signed_part, mac);
  if (!hash::equal(mac, m.mac.data(), kMacBytes)) return Error::bad_mac;
  plaintext.resize(m.ciphertext.size());
  size_t n = 0;
  if (aes::cbc_decrypt(keys.cipher_key.data(), keys.iv.data(), nonnull(m.ciphertext), m.ciphertext.size(),
                       plaintext.data(), &n) != Error::ok) {
    plaintext.clear();
    return Error::invalid_message;
  }
  plaintext.resize(n);
  s.has_pending = false;
  s.used = now_ms;
  return Error::ok;
}

// libsignal-node's doDecryptWhisperMessage on one session (a working copy).
Error decrypt_with(Session& s, const PublicKey& our_identity, const WhisperMessage& m, int64_t now_ms,
                   std::vector<uint8_t>& plaintext) {
  if (Error e = maybe_step_ratchet(s, m.ratchet_key, m.previous_counter); e != Error::ok) return e;
  Chain* c = find_receiver(s, m.ratchet_key);
  if (c == nullptr) return Error::invalid_message;
  Key32 seed;
  if (m.counter <= c->counter) {
    auto it = std::find_if(c->skipped.begin(), c->skipped.end(),
                           [&](const MessageKey& mk) { return mk.index == m.counter; });
    if (it == c->skipped.end()) return Error::duplicate_message;
    if (!it->has_seed) return Error::invalid_record;  // derived-only keys are taken before (take_derived_key)
    seed = it->seed;
    sodium_memzero(&*it, sizeof(MessageKey));
    c->skipped.erase(it);
  } else {
    if (Error e = fill(*c, m.counter); e != Error::ok) return e;
    // The newest key derived is this message's.
    seed = c->skipped.back().seed;
    sodium_memzero(&c->skipped.back(), sizeof(MessageKey));
    c->skipped.pop_back();
    trim(*c);
  }
  MessageKey keys;
  message_keys(seed, keys.cipher_key, keys.mac_key, keys.iv);
  wipe_bytes(seed);
  const Error e = open_message(s, our_identity, m, keys, now_ms, plaintext);
  sodium_memzero(&keys, sizeof keys);
  return e;
}

// Skipped keys from libsignal records hold derived keys rather than seeds; such a key is used as is.
bool take_derived_key(Session& s, const WhisperMessage& m, MessageKey& out) {
  Chain* c = find_receiver(s, m.ratchet_key);
  if (c == nullptr || m.counter > c->counter) return false;
  auto it = std::find_if(c->skipped.begin(), c->skipped.end(),
                         [&](const MessageKey& mk) { return mk.index == m.counter && !mk.has_seed; });
  if (it == c->skipped.end()) return false;
  out = *it;
  sodium_memzero(&*it, sizeof(MessageKey));
  c->skipped.erase(it);
  return true;
}


Error decrypt_session_copy(const Session& original, const PublicKey& our_identity, const WhisperMessage& m,
                           int64_t now_ms, Scratch& work, std::vector<uint8_t>& plaintext) {
  work.s = original;
  MessageKey mk;
  if (take_derived_key(work.s, m, mk)) {
    const Error e = open_message(work.s, our_identity, m, mk, now_ms, plaintext);
    sodium_memzero(&mk, sizeof mk);
    return e;
  }
  return decrypt_with(work.s, our_identity, m, now_ms, plaintext);
}

// Keeps at most kMaxArchivedSessions closed sessions, dropping the longest closed first.
void evict_archived(Record& r) {
  for (;;) {
    size_t closed = 0;
    auto oldest = r.sessions.end();
    for (auto it = r.sessions.begin(); it != r.sessions.end(); ++it) {
      if (it->open()) continue;
      closed++;
      if (oldest == r.sessions.end() || it->closed < oldest->closed) oldest = it;
    }
    if (closed <= kMaxArchivedSessions) return;
    wipe(*oldest);
    r.sessions.erase(oldest);
  }
}

// Adds (or replaces, keeping its place) the session with s's base key, closing the open one.
void install(Record& r, Session&& s, int64_t now_ms) {
  close_open_session(r, now_ms);
  auto same = std::find_if(r.sessions.begin(), r.sessions.end(),
                           [&](const Session& x) { return same_key(x.base_key, s.base_key); });
  if (same != r.sessions.end()) {
    wipe(*same);
    *same = std::move(s);
  } else {
    r.sessions.push_back(std::move(s));
  }
  evict_archived(r);
}

Session* find_incoming(Record& r, const PublicKey& base_key) {
  for (Session& s : r.sessions)
    if (!s.base_key_ours && same_key(s.base_key, base_key)) return &s;
  return nullptr;
}

// Precedence when no session decrypts: the most specific failure wins.
int rank(Error e) {
  switch (e) {
    case Error::too_far_ahead: return 3;
    case Error::invalid_message: return 2;
    case Error::bad_mac: return 1;
    default: return 0;
  }
}

}  // namespace

Error x3dh_initiator_secret(const Key32& our_identity, const Key32& our_base, const PublicKey& their_identity,
                            const PublicKey& their_signed_prekey, const PublicKey* their_prekey,
                            uint8_t out[kX3dhMaxSecret], size_t& len) {
  std::memset(out, 0xFF, 32);
  Error e = dh(their_signed_prekey, our_identity, out + 32);
  if (e == Error::ok) e = dh(their_identity, our_base, out + 64);
  if (e == Error::ok) e = dh(their_signed_prekey, our_base, out + 96);
  if (e == Error::ok && their_prekey != nullptr) e = dh(*their_prekey, our_base, out + 128);
  len = their_prekey != nullptr ? 160 : 128;
  if (e != Error::ok) sodium_memzero(out, kX3dhMaxSecret);
  return e;
}

Error x3dh_responder_secret(const Key32& our_identity, const Key32& our_signed_prekey, const Key32* our_prekey,
                            const PublicKey& their_identity, const PublicKey& their_base_key,
                            uint8_t out[kX3dhMaxSecret], size_t& len) {
  std::memset(out, 0xFF, 32);
  Error e = dh(their_identity, our_signed_prekey, out + 32);
  if (e == Error::ok) e = dh(their_base_key, our_identity, out + 64);
  if (e == Error::ok) e = dh(their_base_key, our_signed_prekey, out + 96);
  if (e == Error::ok && our_prekey != nullptr) e = dh(their_base_key, *our_prekey, out + 128);
  len = our_prekey != nullptr ? 160 : 128;
  if (e != Error::ok) sodium_memzero(out, kX3dhMaxSecret);
  return e;
}

void derive_initial_keys(std::span<const uint8_t> secret, Key32& root_key, Key32& chain_key) {
  uint8_t okm[64];
  (void)hash::hkdf(secret, {}, info(kInfoText), okm);
  std::memcpy(root_key.data(), okm, 32);
  std::memcpy(chain_key.data(), okm + 32, 32);
  sodium_memzero(okm, sizeof okm);
}

void chain_step(const Key32& chain_key, Key32& seed, Key32& next_chain_key) {
  static constexpr uint8_t kSeed[1] = {0x01};
  static constexpr uint8_t kNext[1] = {0x02};
  hash::hmac_sha256_pair(chain_key, kSeed, seed.data(), kNext, next_chain_key.data());
}

void message_keys(const Key32& seed, Key32& cipher_key, Key32& mac_key, std::array<uint8_t, 16>& iv) {
  uint8_t okm[80];
  (void)hash::hkdf(seed, {}, info(kInfoMessageKeys), okm);
  std::memcpy(cipher_key.data(), okm, 32);
  std::memcpy(mac_key.data(), okm + 32, 32);
  std::memcpy(iv.data(), okm + 64, 16);
  sodium_memzero(okm, sizeof okm);
}

void enforce_limits(Record& record) {
  const auto normalize = [](Chain& c) {
    // Insertion sort: stored keys are nearly always in order already.
    for (size_t i = 1; i < c.skipped.size(); i++) {
      for (size_t j = i; j > 0 && c.skipped[j - 1].index > c.skipped[j].index; j--) {
        std::swap(c.skipped[j - 1], c.skipped[j]);
      }
    }
    trim(c);
  };
  for (Session& s : record.sessions) {
    normalize(s.sender);
    for (Chain& c : s.receivers) normalize(c);
    while (s.receivers.size() > kMaxReceiverChains) {
      wipe(s.receivers.front());
      s.receivers.erase(s.receivers.begin());
    }
  }
  evict_archived(record);
}

void wipe_record(Record& record) noexcept {
  for (Session& s : record.sessions) wipe(s);
}

const Session* open_session(const Record& record) {
  for (const Session& s : record.sessions)
    if (s.open()) return &s;
  return nullptr;
}

bool has_incoming_session(const Record& record, const PublicKey& base_key) {
  for (const Session& s : record.sessions)
    if (!s.base_key_ours && same_key(s.base_key, base_key)) return true;
  return false;
}

void close_open_session(Record& record, int64_t now_ms) {
  for (Session& s : record.sessions)
    if (s.open()) s.closed = now_ms < 0 ? 0 : now_ms;
}

Error init_outgoing(Record& record, const KeyPair& our_identity, const PreKeyBundle& bundle,
                    int64_t now_ms) {
  if (bundle.identity[0] != curve::kDjbType || bundle.signed_prekey[0] != curve::kDjbType ||
      (bundle.has_prekey && bundle.prekey[0] != curve::kDjbType)) {
    return Error::key_type;
  }
  // libsignal-node skips this check (its verifySignature is told the bundle is "init"); libsignal
  // and whatsmeow make it. WhatsApp's server relays the signature the device published.
  if (!curve::verify(bundle.identity.data() + 1, bundle.signed_prekey, bundle.signature.data())) {
    return Error::bad_signature;
  }
  Scratch work;
  Session& s = work.s;
  KeyPair base;
  if (Error e = new_key_pair(base); e != Error::ok) return e;
  uint8_t secret[kX3dhMaxSecret];
  size_t secret_len = 0;
  Error e = x3dh_initiator_secret(our_identity.priv, base.priv, bundle.identity, bundle.signed_prekey,
                                  bundle.has_prekey ? &bundle.prekey : nullptr, secret, secret_len);
  if (e == Error::ok) {
    Key32 unused;  // libsignal's first chain key; libsignal-node derives the sending chain afresh
    derive_initial_keys(std::span<const uint8_t>(secret, secret_len), s.root_key, unused);
    wipe_bytes(unused);
  }
  sodium_memzero(secret, sizeof secret);
  wipe_bytes(base.priv);
  if (e != Error::ok) return e;
  s.has_registration_id = true;
  s.registration_id = bundle.registration_id;
  s.last_remote_ratchet = bundle.signed_prekey;
  s.previous_counter = 0;
  s.base_key = base.pub;
  s.base_key_ours = true;
  s.closed = -1;
  s.used = s.created = now_ms;
  s.remote_identity = bundle.identity;
  if (e = new_key_pair(s.ratchet); e != Error::ok) return e;
  s.sender.ratchet_key = s.ratchet.pub;
  if (e = ratchet_step(s, bundle.signed_prekey, s.ratchet.priv, s.sender); e != Error::ok) return e;
  s.has_sender = true;
  s.has_pending = true;
  s.pending.signed_prekey_id = bundle.signed_prekey_id;
  s.pending.has_prekey_id = bundle.has_prekey;
  s.pending.prekey_id = bundle.prekey_id;
  s.pending.base_key = base.pub;
  install(record, std::move(s), now_ms);
  return Error::ok;
}

Error init_incoming(Record& record, const KeyPair& our_identity, const PreKeyMessage& message,
                    const KeyPair* signed_prekey, const KeyPair* prekey, int64_t now_ms,
                    bool& created) {
  created = false;
  if (has_incoming_session(record, message.base_key)) return Error::ok;  // we have not replied yet
  if (message.has_prekey_id && prekey == nullptr) return Error::invalid_prekey_id;
  if (signed_prekey == nullptr) return Error::invalid_prekey_id;
  const bool with_prekey = message.has_prekey_id;  // a pre-key is used only when the message names one
  Scratch work;
  Session& s = work.s;
  uint8_t secret[kX3dhMaxSecret];
  size_t secret_len = 0;
  Error e = x3dh_responder_secret(our_identity.priv, signed_prekey->priv, with_prekey ? &prekey->priv : nullptr,
                                  message.identity_key, message.base_key, secret, secret_len);
  if (e == Error::ok) {
    Key32 unused;
    derive_initial_keys(std::span<const uint8_t>(secret, secret_len), s.root_key, unused);
    wipe_bytes(unused);
  }
  sodium_memzero(secret, sizeof secret);
  if (e != Error::ok) return Error::invalid_message;
  s.has_registration_id = message.has_registration_id;
  s.registration_id = message.registration_id;
  s.ratchet = *signed_prekey;
  s.last_remote_ratchet = message.base_key;
  s.previous_counter = 0;
  s.base_key = message.base_key;
  s.base_key_ours = false;
  s.closed = -1;
  s.used = s.created = now_ms;
  s.remote_identity = message.identity_key;
  install(record, std::move(s), now_ms);
  created = true;
  return Error::ok;
}

Error encrypt(Record& record, const PublicKey& our_identity, uint32_t our_registration_id,
              std::span<const uint8_t> plaintext, EncryptResult& out) {
  Session* open = nullptr;
  for (Session& s : record.sessions) {
    if (s.open()) {
      open = &s;
      break;
    }
  }
  if (open == nullptr || !open->has_sender || !open->sender.has_key) return Error::no_session;
  Session& s = *open;

  // Advance a copy of the chain; commit only once the message is built.
  Chain chain = s.sender;
  Key32 seed, next;
  chain_step(chain.key, seed, next);
  chain.key = next;
  chain.counter++;
  wipe_bytes(next);
  Key32 cipher_key, mac_key;
  std::array<uint8_t, 16> iv;
  message_keys(seed, cipher_key, mac_key, iv);
  wipe_bytes(seed);

  std::vector<uint8_t> ciphertext(aes::cbc_encrypted_size(plaintext.size()));
  aes::cbc_encrypt(cipher_key.data(), iv.data(), nonnull(plaintext), plaintext.size(), ciphertext.data());
  wipe_bytes(cipher_key);

  std::vector<uint8_t> whisper;
  if (Error e = encode_whisper(s.ratchet.pub, static_cast<uint32_t>(chain.counter),
                               s.previous_counter < 0 ? 0 : static_cast<uint32_t>(s.previous_counter),
                               ciphertext, whisper);
      e != Error::ok) {
    wipe_bytes(mac_key);
    wipe(chain);
    return e;
  }
  uint8_t mac[32];
  whisper_mac(mac_key, our_identity, s.remote_identity, whisper, mac);
  wipe_bytes(mac_key);
  whisper.insert(whisper.end(), mac, mac + kMacBytes);

  out.remote_identity = s.remote_identity;
  out.has_registration_id = s.has_registration_id;
  out.registration_id = s.registration_id;
  if (s.has_pending) {
    out.type = kTypePreKey;
    if (Error e = encode_prekey(s.pending, our_identity, our_registration_id, whisper, out.body); e != Error::ok) {
      wipe(chain);
      return e;
    }
  } else {
    out.type = kTypeWhisper;
    out.body = std::move(whisper);
  }
  wipe(s.sender);
  s.sender = std::move(chain);
  wipe(chain);  // moved-from, but its key array was copied, not moved
  return Error::ok;
}

Error decrypt_whisper(Record& record, const PublicKey& our_identity, std::span<const uint8_t> message,
                      int64_t now_ms, DecryptResult& out) {
  WhisperMessage m;
  if (Error e = parse_whisper_message(message, m); e != Error::ok) return e;
  if (record.sessions.empty()) return Error::no_session;
  // Most recently used first (libsignal-node's getSessions; record order for equal times).
  std::vector<size_t> order;
  order.reserve(record.sessions.size());
  for (size_t i = 0; i < record.sessions.size(); i++) {
    size_t j = order.size();
    order.push_back(i);
    for (; j > 0 && record.sessions[order[j - 1]].used < record.sessions[i].used; j--) order[j] = order[j - 1];
    order[j] = i;
  }
  Error best = Error::bad_mac;
  for (size_t i : order) {
    Scratch work;
    const Error e = decrypt_session_copy(record.sessions[i], our_identity, m, now_ms, work, out.plaintext);
    if (e == Error::ok) {
      out.remote_identity = work.s.remote_identity;
      out.prekey_used = false;
      wipe(record.sessions[i]);
      record.sessions[i] = std::move(work.s);
      return Error::ok;
    }
    if (e == Error::duplicate_message) return e;
    if (e == Error::out_of_memory || e == Error::entropy) return e;
    if (rank(e) > rank(best)) best = e;
  }
  return best;
}

Error decrypt_prekey(Record& record, const KeyPair& our_identity, std::span<const uint8_t> message,
                     const KeyPair* signed_prekey, const KeyPair* prekey, int64_t now_ms,
                     DecryptResult& out) {
  PreKeyMessage pm;
  if (Error e = parse_prekey_message(message, pm); e != Error::ok) return e;
  WhisperMessage m;
  if (Error e = parse_whisper_message(pm.message, m); e != Error::ok) return e;
  for (const Session& s : record.sessions) {
    if (s.base_key_ours && same_key(s.base_key, pm.base_key)) return Error::invalid_message;
  }
  Record work = record;
  bool created = false;
  if (Error e = init_incoming(work, our_identity, pm, signed_prekey, prekey, now_ms, created); e != Error::ok) {
    for (Session& s : work.sessions) wipe(s);
    return e;
  }
  Session* s = find_incoming(work, pm.base_key);
  Scratch scratch;
  Error e = s == nullptr ? Error::no_session : decrypt_session_copy(*s, our_identity.pub, m, now_ms, scratch, out.plaintext);
  if (e == Error::ok) {
    wipe(*s);
    *s = std::move(scratch.s);
    for (Session& old : record.sessions) wipe(old);
    record = std::move(work);
    out.remote_identity = pm.identity_key;
    out.prekey_used = created && pm.has_prekey_id;
    return Error::ok;
  }
  for (Session& x : work.sessions) wipe(x);
  return e;
}

}  // namespace wacore::signal
