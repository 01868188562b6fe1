// One error type for the whole core. Each code has a stable string (the JS `code` property) and a
// short message beside it; messages say what was wrong with the input, never anything secret.
#pragma once

#include <cstdint>

namespace wacore {

// X(name, code string, message)
#define WACORE_ERRORS(X)                                                                          \
  X(ok, "OK", "no error")                                                                         \
  X(key_length, "ERR_KEY_LENGTH", "key has the wrong length")                                     \
  X(key_type, "ERR_KEY_TYPE", "a 33-byte public key must start with the type byte 0x05")          \
  X(signature_length, "ERR_SIGNATURE_LENGTH", "signature must be 64 bytes")                      \
  X(random_length, "ERR_RANDOM_LENGTH", "signature randomness must be 64 bytes")                 \
  X(low_order_point, "ERR_LOW_ORDER_POINT",                                                       \
    "public key is a low-order point: the shared secret would be all zero")                       \
  X(entropy, "ERR_ENTROPY", "the random source failed")                                           \
  X(out_of_memory, "ERR_OUT_OF_MEMORY", "out of memory")                                          \
  X(output_length, "ERR_OUTPUT_LENGTH", "requested output length is out of range")                \
  X(iv_length, "ERR_IV_LENGTH", "IV has the wrong length")                                        \
  X(bad_padding, "ERR_BAD_PADDING", "decryption failed")                                          \
  X(auth_tag, "ERR_AUTH_TAG", "authentication failed")                                            \
  X(data_length, "ERR_DATA_LENGTH", "input length is not valid for this operation")               \
  X(stream_state, "ERR_STREAM_STATE", "the stream was used after it finished or in the wrong order") \
  X(no_session, "ERR_NO_SESSION", "no session with this address can do that")                     \
  X(bad_mac, "ERR_BAD_MAC", "message authentication failed: no session matches this message")      \
  X(duplicate_message, "ERR_DUPLICATE_MESSAGE", "message key already used: a duplicate message")  \
  X(invalid_prekey_id, "ERR_INVALID_PREKEY_ID", "the message names a pre-key that is not stored")   \
  X(untrusted_identity, "ERR_UNTRUSTED_IDENTITY", "the identity key is not trusted")              \
  X(too_far_ahead, "ERR_TOO_FAR_AHEAD", "message is too far ahead of its chain")                   \
  X(invalid_message, "ERR_INVALID_MESSAGE", "malformed message or unsupported version")            \
  X(invalid_record, "ERR_INVALID_RECORD", "malformed session record")                              \
  X(bad_signature, "ERR_BAD_SIGNATURE", "signature verification failed")                           \
  X(binary_truncated, "ERR_BINARY_TRUNCATED", "input ends inside a node")                          \
  X(binary_tag, "ERR_BINARY_TAG", "unknown or misplaced tag byte")                                \
  X(binary_packed, "ERR_BINARY_PACKED", "invalid digit in a packed string")                       \
  X(binary_leftover, "ERR_BINARY_LEFTOVER", "bytes left over after the node")                      \
  X(binary_jid, "ERR_BINARY_JID", "invalid JID")                                                  \
  X(binary_depth, "ERR_BINARY_DEPTH", "nodes nested too deeply")                                   \
  X(binary_inflate, "ERR_BINARY_INFLATE", "compressed frame is invalid or inflates too far")      \
  X(binary_node, "ERR_BINARY_NODE", "invalid node: empty list or empty tag")                      \
  X(binary_too_large, "ERR_BINARY_TOO_LARGE", "too many attributes or children, or content too long") \
  X(binary_tape, "ERR_BINARY_TAPE", "malformed node description")                                 \
  X(dictionary, "ERR_DICTIONARY", "unknown token dictionary version")                             \
  /* Noise transport */                                                                           \
  X(noise_header, "ERR_NOISE_HEADER", "connection header or routing pre-header is malformed")    \
  X(noise_message, "ERR_NOISE_MESSAGE", "malformed handshake message")                            \
  X(noise_state, "ERR_NOISE_STATE", "noise step called out of order or after a failure")         \
  X(noise_cert, "ERR_NOISE_CERT", "server certificate chain is malformed")                       \
  X(noise_cert_signature, "ERR_NOISE_CERT_SIGNATURE", "server certificate signature is invalid")  \
  X(noise_cert_serial, "ERR_NOISE_CERT_SERIAL", "server certificate serials do not chain")        \
  X(noise_cert_key, "ERR_NOISE_CERT_KEY", "server certificate does not name the server's static key") \
  X(noise_cert_time, "ERR_NOISE_CERT_TIME", "server certificate is not valid at the given time")  \
  X(noise_frame_too_large, "ERR_NOISE_FRAME_TOO_LARGE", "frame is longer than the allowed maximum") \
  X(noise_counter, "ERR_NOISE_COUNTER", "nonce counter exhausted: the connection must be renewed") \
  /* Sender keys and app-state patches */                                                         \
  X(no_sender_key, "ERR_NO_SENDER_KEY", "no sender-key state for this message's key id")          \
  X(invalid_patch, "ERR_INVALID_PATCH", "malformed app-state patch, snapshot or mutation")         \
  X(missing_key, "ERR_MISSING_KEY", "no app-state sync key with this key id")                      \
  X(patch_mac, "ERR_PATCH_MAC", "app-state patch MAC does not match")                              \
  X(value_mac, "ERR_VALUE_MAC", "app-state mutation value MAC does not match")                     \
  X(index_mac, "ERR_INDEX_MAC", "app-state mutation index MAC does not match its index")           \
  X(snapshot_mac, "ERR_SNAPSHOT_MAC", "LTHash does not match the snapshot MAC after applying")     \
  X(remove_without_set, "ERR_REMOVE_WITHOUT_SET", "REMOVE of an index that has no value (strict mode)") \
  X(type, "ERR_TYPE", "an argument names no known kind or operation")                           \
  X(proto_malformed, "ERR_PROTO_MALFORMED", "malformed protobuf: truncated, overlong or invalid wire data") \
  X(proto_depth, "ERR_PROTO_DEPTH", "protobuf messages nested too deeply")                        \
  X(proto_too_large, "ERR_PROTO_TOO_LARGE", "protobuf message or its decoded form is too large")   \
  X(proto_tape, "ERR_PROTO_TAPE", "malformed protobuf encode description (a bug of the caller)")

enum class Error : int32_t {
#define WACORE_ERROR_ENUM(name, code, message) name,
  WACORE_ERRORS(WACORE_ERROR_ENUM)
#undef WACORE_ERROR_ENUM
      count_  // not an error: the number of codes above
};

// Stable identifier for `e`, e.g. "ERR_KEY_LENGTH"; "ERR_UNKNOWN" for values out of range.
const char* error_code(Error e) noexcept;
// One-line description of `e` for error messages.
const char* error_message(Error e) noexcept;

}  // namespace wacore
