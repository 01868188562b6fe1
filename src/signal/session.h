// Signal 1:1 sessions as WhatsApp uses them (message version 3): X3DH as initiator and responder,
// the double ratchet, WhisperMessage and PreKeyWhisperMessage, and session records.
//
// The model is libsignal-node's, so that its stored records load and save without loss: a record is
// a list of sessions keyed by base key, at most one open (closed == -1), each with a current ratchet
// key pair, the last remote ratchet key, a root key, one sending chain and receiving chains whose
// skipped message keys are kept as 32-byte seeds. On top of that model, libsignal's limits
// (kMax* below) keep every record bounded.
//
// Every operation is functional: it takes a record and either succeeds, replacing the record with
// the new one, or returns an Error and leaves the record exactly as it was (work happens on a copy
// of the session and is committed at the end). Time is a parameter (milliseconds since the epoch,
// libsignal-node's Date.now()), so results are reproducible. Out of memory throws std::bad_alloc,
// which may leave the in-memory record half-changed: the wasm exports parse a fresh record for each
// call and discard it, returning ERR_OUT_OF_MEMORY, so a stored record is untouched (docs/build.md).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"

namespace wacore::signal {

// Limits from signalapp/libsignal (rust/protocol/src/consts.rs), see docs/signal.md.
inline constexpr uint32_t kMaxForwardJump = 25'000;         // messages ahead of a chain
inline constexpr size_t kMaxSkippedKeysPerChain = 2'000;    // oldest evicted beyond this
inline constexpr size_t kMaxReceiverChains = 5;             // oldest dropped beyond this
inline constexpr size_t kMaxArchivedSessions = 40;          // closed sessions kept per record
// Times (ms since the epoch) in a record: libsignal-node keeps them as JS numbers, so both record
// formats accept 0..2^53 (closed: also -1, open) and nothing larger is ever written.
inline constexpr int64_t kMaxTime = int64_t{1} << 53;

inline constexpr uint8_t kMessageVersion = 3;
inline constexpr uint8_t kVersionByte = (kMessageVersion << 4) | kMessageVersion;  // 0x33
inline constexpr size_t kMacBytes = 8;                      // WhisperMessage MAC, truncated
inline constexpr int kTypeWhisper = 1;                      // libsignal-node's encrypt() types
inline constexpr int kTypePreKey = 3;

using PublicKey = std::array<uint8_t, 33>;  // 0x05 || X25519 u
using Key32 = std::array<uint8_t, 32>;

struct KeyPair {
  PublicKey pub{};
  Key32 priv{};
};

// A skipped message key. Records we write keep the seed (HMAC(chainKey, 0x01)), as libsignal-node
// does; records from libsignal that hold only the derived keys keep those.
struct MessageKey {
  uint32_t index = 0;
  bool has_seed = true;
  Key32 seed{};
  Key32 cipher_key{};
  Key32 mac_key{};
  std::array<uint8_t, 16> iv{};
};

struct Chain {
  PublicKey ratchet_key{};          // their ratchet key (receiving) or ours (sending)
  int64_t counter = -1;             // index of the last message key derived; -1 before the first
  bool has_key = false;             // false once the chain is closed
  Key32 key{};                      // chain key after `counter`
  std::vector<MessageKey> skipped;  // ascending index, at most kMaxSkippedKeysPerChain
};

struct PendingPreKey {
  uint32_t signed_prekey_id = 0;
  bool has_prekey_id = false;
  uint32_t prekey_id = 0;
  PublicKey base_key{};
};

struct Session {
  bool has_registration_id = false;
  uint32_t registration_id = 0;  // the remote party's
  KeyPair ratchet;               // our current ratchet key pair
  PublicKey last_remote_ratchet{};
  int64_t previous_counter = 0;
  Key32 root_key{};
  PublicKey base_key{};
  bool base_key_ours = false;    // libsignal-node baseKeyType 1 (ours) or 2 (theirs)
  int64_t closed = -1;           // -1 while open, else when it was closed (ms)
  int64_t used = 0;
  int64_t created = 0;
  PublicKey remote_identity{};
  std::vector<Chain> receivers;  // oldest first, at most kMaxReceiverChains after a ratchet step
  bool has_sender = false;
  Chain sender;                  // ratchet_key == ratchet.pub
  bool has_pending = false;
  PendingPreKey pending;

  bool open() const { return closed == -1; }
};

struct Record {
  std::vector<Session> sessions;  // in insertion order, as libsignal-node keeps them
};

// What a peer publishes: its identity key, signed pre-key (with the identity's XEdDSA signature
// over the 33-byte key) and optionally a one-time pre-key.
struct PreKeyBundle {
  uint32_t registration_id = 0;
  PublicKey identity{};
  uint32_t signed_prekey_id = 0;
  PublicKey signed_prekey{};
  std::array<uint8_t, 64> signature{};
  bool has_prekey = false;
  uint32_t prekey_id = 0;
  PublicKey prekey{};
};

// A parsed WhisperMessage. The spans point into the parsed input.
struct WhisperMessage {
  PublicKey ratchet_key{};
  uint32_t counter = 0;
  uint32_t previous_counter = 0;
  std::span<const uint8_t> ciphertext;
  std::span<const uint8_t> signed_part;  // version byte + protobuf: what the MAC covers
  std::span<const uint8_t> mac;          // kMacBytes
};

// A parsed PreKeyWhisperMessage. `message` points into the parsed input.
struct PreKeyMessage {
  bool has_prekey_id = false;
  uint32_t prekey_id = 0;
  uint32_t signed_prekey_id = 0;
  PublicKey base_key{};
  PublicKey identity_key{};
  bool has_registration_id = false;
  uint32_t registration_id = 0;
  std::span<const uint8_t> message;
};

// --- wire formats (proto.cpp) -----------------------------------------------------------------------
// Errors: Error::invalid_message for anything malformed or of another version.
Error parse_whisper_message(std::span<const uint8_t> in, WhisperMessage& out);
Error parse_prekey_message(std::span<const uint8_t> in, PreKeyMessage& out);
// The version byte and WhisperMessage protobuf (the MAC is appended by the caller), fields in number
// order as libsignal-node writes them.
Error encode_whisper(const PublicKey& ratchet_key, uint32_t counter, uint32_t previous_counter,
                     std::span<const uint8_t> ciphertext, std::vector<uint8_t>& out);
// The version byte and PreKeyWhisperMessage protobuf around a complete WhisperMessage.
Error encode_prekey(const PendingPreKey& pending, const PublicKey& identity, uint32_t registration_id,
                    std::span<const uint8_t> whisper, std::vector<uint8_t>& out);

// --- records (proto.cpp, record_json.cpp) -----------------------------------------------------------
// The binary form is libsignal's RecordStructure protobuf: the open session as currentSession,
// others as previousSessions (all in record order), plus fields 100-105 of SessionStructure for
// what only libsignal-node keeps (docs/signal.md). Empty input is an empty record.
Error parse_record(std::span<const uint8_t> in, Record& out);
Error serialize_record(const Record& record, std::string& out);
// libsignal-node's JSON (SessionRecord.serialize(), version "v1"; an unversioned record is migrated
// as libsignal-node does). Errors: Error::invalid_record.
Error record_from_json(std::string_view json, Record& out);
Error record_to_json(const Record& record, std::string& out);

// --- sessions (session.cpp) -------------------------------------------------------------------------
// The open session, or nullptr.
const Session* open_session(const Record& record);
// Whether the record holds a session with this base key that the other side started.
bool has_incoming_session(const Record& record, const PublicKey& base_key);
// Applies the limits to a record read from storage: skipped keys sorted and the newest
// kMaxSkippedKeysPerChain kept, the newest kMaxReceiverChains receiving chains, the most recently
// closed kMaxArchivedSessions closed sessions.
void enforce_limits(Record& record);
// Erases every secret in the record (before its memory is released).
void wipe_record(Record& record) noexcept;
// Closes the open session, if any (libsignal-node's closeOpenSession).
void close_open_session(Record& record, int64_t now_ms);

// X3DH as initiator (libsignal-node's SessionBuilder.initOutgoing): verifies the signed pre-key's
// signature (Error::bad_signature), starts a session, closes the previously open one.
Error init_outgoing(Record& record, const KeyPair& our_identity, const PreKeyBundle& bundle,
                    int64_t now_ms);

// X3DH as responder (SessionBuilder.initIncoming): starts the session a PreKeyWhisperMessage
// announces unless it exists. `signed_prekey` and `prekey` are what the store holds for the
// message's ids (nullptr: not found): Error::invalid_prekey_id if one the message names is missing.
// `created` tells whether a session was made (and the one-time pre-key is therefore used up).
Error init_incoming(Record& record, const KeyPair& our_identity, const PreKeyMessage& message,
                    const KeyPair* signed_prekey, const KeyPair* prekey, int64_t now_ms,
                    bool& created);

struct EncryptResult {
  int type = kTypeWhisper;  // kTypeWhisper or kTypePreKey
  std::vector<uint8_t> body;
  bool has_registration_id = false;
  uint32_t registration_id = 0;  // the remote party's
  PublicKey remote_identity{};   // for the caller's trust check
};

// SessionCipher.encrypt on the open session. Error::no_session without one.
Error encrypt(Record& record, const PublicKey& our_identity, uint32_t our_registration_id,
              std::span<const uint8_t> plaintext, EncryptResult& out);

struct DecryptResult {
  std::vector<uint8_t> plaintext;
  PublicKey remote_identity{};  // of the session that decrypted (for the caller's trust check)
  bool prekey_used = false;     // decrypt_prekey: a new session consumed `message.prekey_id`
};

// SessionCipher.decryptWhisperMessage: tries every session, most recently used first, each on a
// copy. A message whose key was already used is Error::duplicate_message at once.
Error decrypt_whisper(Record& record, const PublicKey& our_identity, std::span<const uint8_t> message,
                      int64_t now_ms, DecryptResult& out);

// SessionCipher.decryptPreKeyWhisperMessage: init_incoming, then the inner WhisperMessage with
// that session; nothing is kept unless both succeed.
Error decrypt_prekey(Record& record, const KeyPair& our_identity, std::span<const uint8_t> message,
                     const KeyPair* signed_prekey, const KeyPair* prekey, int64_t now_ms,
                     DecryptResult& out);

// --- building blocks, exposed for the golden-vector tests --------------------------------------------
inline constexpr size_t kX3dhMaxSecret = 32 * 5;
// X3DH's input key material, 0xFF*32 || DH1 || DH2 || DH3 [|| DH4] (128 or 160 bytes into out,
// length in len), as the initiator (their_prekey may be null) and as the responder (our_prekey may
// be null). Errors from curve::agreement (a key of the wrong type, a low-order point).
Error x3dh_initiator_secret(const Key32& our_identity, const Key32& our_base, const PublicKey& their_identity,
                            const PublicKey& their_signed_prekey, const PublicKey* their_prekey,
                            uint8_t out[kX3dhMaxSecret], size_t& len);
Error x3dh_responder_secret(const Key32& our_identity, const Key32& our_signed_prekey, const Key32* our_prekey,
                            const PublicKey& their_identity, const PublicKey& their_base_key,
                            uint8_t out[kX3dhMaxSecret], size_t& len);
// HKDF-SHA256(secret, 32 zero bytes, "WhisperText") -> root key, first chain key (X3DH's output).
void derive_initial_keys(std::span<const uint8_t> secret, Key32& root_key, Key32& chain_key);
// Message-key seed and next chain key from a chain key.
void chain_step(const Key32& chain_key, Key32& seed, Key32& next_chain_key);
// HKDF(seed, 32 zero bytes, "WhisperMessageKeys") -> cipher key, MAC key, IV.
void message_keys(const Key32& seed, Key32& cipher_key, Key32& mac_key, std::array<uint8_t, 16>& iv);

}  // namespace wacore::signal
