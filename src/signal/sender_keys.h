// Sender keys: Signal's group messaging as WhatsApp uses it (docs/protocol.md §3).
//
// A sender has one chain per group: a 31-bit key id, an iteration, a 32-byte chain key and a signing
// key pair. It hands the chain's current state to each member in a SenderKeyDistributionMessage
// (inside a 1:1 message) and then encrypts each group message once with the next message key,
// signing it (XEdDSA) with its signing key. A member keeps one state per distribution message it
// received (at most kMaxSenderKeyStates per sender), with the message keys it skipped.
//
// Records are kept in Baileys' order: oldest state first, newest last (its JSON array); the binary
// form is libsignal's SenderKeyRecordStructure, newest first, as libsignal and whatsapp-rust write
// it. Every operation is functional: the record is replaced on success and untouched on error.
// Out of memory throws std::bad_alloc, as in session.h.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "signal/session.h"

namespace wacore::signal {

// Limits (signalapp/libsignal rust/protocol/src/consts.rs; docs/groups.md).
inline constexpr size_t kMaxSenderKeyStates = 5;         // oldest dropped beyond this
inline constexpr size_t kMaxSenderMessageKeys = 2'000;   // skipped keys per state, oldest evicted
inline constexpr uint32_t kMaxSenderForwardJump = 25'000;  // iterations ahead of a chain
inline constexpr size_t kSenderSignatureBytes = 64;

struct SenderMessageKey {
  uint32_t iteration = 0;
  Key32 seed{};  // HMAC(chainKey, 0x01) at that iteration
};

struct SenderKeyState {
  uint32_t key_id = 0;
  uint32_t iteration = 0;  // of chain_key: the next message key to derive
  Key32 chain_key{};
  PublicKey signing_public{};
  bool has_signing_private = false;  // only the sender's own state
  Key32 signing_private{};
  std::vector<SenderMessageKey> skipped;  // insertion order, at most kMaxSenderMessageKeys
};

struct SenderKeyRecord {
  std::vector<SenderKeyState> states;  // oldest first (Baileys' order)
};

struct SenderKeyDistribution {
  uint32_t key_id = 0;
  uint32_t iteration = 0;
  Key32 chain_key{};
  PublicKey signing_key{};
};

// A parsed SenderKeyMessage; spans point into the parsed input.
struct SenderKeyMessage {
  uint32_t key_id = 0;
  uint32_t iteration = 0;
  std::span<const uint8_t> ciphertext;
  std::span<const uint8_t> signed_part;  // version byte + protobuf
  std::span<const uint8_t> signature;    // 64 bytes
};

// --- wire formats (sender_keys_proto.cpp parses, sender_keys_write.cpp writes) ---------------------
// Errors: Error::invalid_message.
Error parse_distribution(std::span<const uint8_t> in, SenderKeyDistribution& out);
Error parse_sender_key_message(std::span<const uint8_t> in, SenderKeyMessage& out);
// 0x33 || protobuf{id, iteration, chainKey, signingKey}, every field written (as Baileys does).
void encode_distribution(const SenderKeyDistribution& d, std::vector<uint8_t>& out);
// 0x33 || protobuf{id, iteration, ciphertext}: what the signature covers.
void encode_sender_key_message(uint32_t key_id, uint32_t iteration, std::span<const uint8_t> ciphertext,
                               std::vector<uint8_t>& out);

// --- records ------------------------------------------------------------------------------------------
// libsignal's SenderKeyRecordStructure (newest state first). Empty input is an empty record.
// Errors: Error::invalid_record.
Error parse_sender_key_record(std::span<const uint8_t> in, SenderKeyRecord& out);
void serialize_sender_key_record(const SenderKeyRecord& record, std::string& out);
// Baileys' JSON (SenderKeyRecord.serialize(): an array of SenderKeyStateStructure objects, byte
// fields as base64 strings, the form protobufjs's toJSON gives). Errors: Error::invalid_record.
Error sender_key_record_from_json(std::string_view json, SenderKeyRecord& out);
void sender_key_record_to_json(const SenderKeyRecord& record, std::string& out);
// Applies the limits to a record read from storage (newest kMaxSenderKeyStates states, newest
// kMaxSenderMessageKeys skipped keys per state).
void enforce_sender_key_limits(SenderKeyRecord& record);
void wipe_sender_key_record(SenderKeyRecord& record) noexcept;

// --- operations (sender_keys.cpp) -------------------------------------------------------------------
// GroupSessionBuilder.create: an empty record gets a fresh state (random 31-bit id, iteration 0,
// random chain key, new signing pair); the distribution message describes the newest state.
Error create_sender_key(SenderKeyRecord& record, SenderKeyDistribution& out);
// GroupSessionBuilder.process: adds the state a distribution message describes. A state with the
// same key id and signing key is kept as it is (re-processing a distribution message loses no
// progress) and becomes the newest; one with the same id but another signing key is replaced.
void process_distribution(SenderKeyRecord& record, const SenderKeyDistribution& d);
// GroupCipher.encrypt with the newest state (which must hold the signing private key:
// Error::no_session otherwise): AES-256-CBC with the next message key, signed. Iterations go
// 0, 1, 2, ...
Error group_encrypt(SenderKeyRecord& record, std::span<const uint8_t> plaintext, std::vector<uint8_t>& out);
// GroupCipher.decrypt: the state with the message's key id (Error::no_sender_key), signature checked
// first (Error::bad_signature), then the message key: a skipped one (used once,
// Error::duplicate_message after), or derived ahead (Error::too_far_ahead beyond
// kMaxSenderForwardJump), keeping the skipped ones. Errors: Error::invalid_message (malformed,
// padding).
Error group_decrypt(SenderKeyRecord& record, std::span<const uint8_t> message, std::vector<uint8_t>& plaintext);

// HKDF(seed, 32 zero bytes, "WhisperGroup", 48) -> iv [0:16], cipher key [16:48].
void sender_message_keys(const Key32& seed, std::array<uint8_t, 16>& iv, Key32& cipher_key);

}  // namespace wacore::signal
