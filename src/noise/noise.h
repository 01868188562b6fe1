// WhatsApp's Noise transport (docs/protocol.md §5): Noise_XX_25519_AESGCM_SHA256 with WhatsApp's
// prologue, protobuf handshake messages and server certificate chain, then AES-256-GCM frames with
// 3-byte big-endian lengths.
//
// Layers, each usable alone:
//  - SymmetricState: h, ck, k and the handshake counter (authenticate = mixHash, mix_key, AEAD).
//  - Handshake: the XX steps as client or responder, on unframed HandshakeMessage bytes.
//  - verify_cert_chain: the server's certificate chain against a root key and a clock.
//  - CipherState / Transport: the keys after the split, one counter per direction.
//  - FrameReader: buffers a byte stream and cuts it into frames.
//  - Connection: all of the above for one socket, as the JS API drives it.
//
// Nothing is advanced by input that fails: an AEAD failure leaves key, counter and hash as they were.
// Handshake failures are final (the connection must start over). Out of memory throws
// std::bad_alloc with the transport unchanged; in a handshake step it ends the handshake as failed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/error.h"
#include "crypto/aes_modes.h"

namespace wacore::noise {

using Bytes = std::span<const uint8_t>;

inline constexpr size_t kKeyBytes = 32;
inline constexpr size_t kHashBytes = 32;
inline constexpr size_t kTagBytes = 16;
// Frames carry a 3-byte length: nothing longer than 2^24 - 1 bytes can be framed.
inline constexpr size_t kMaxFrameBytes = (size_t{1} << 24) - 1;
// Default limit for received frames: the largest WhatsApp sends are media-free stanzas and history
// notifications of a few MiB at most; anything up to the wire maximum is allowed if asked for.
inline constexpr size_t kDefaultMaxFrameBytes = kMaxFrameBytes;
// GCM nonces are 00*8 || uint32_BE(counter): 2^32 messages per key, never more.
inline constexpr uint64_t kMaxCounter = uint64_t{1} << 32;

// "Noise_XX_25519_AESGCM_SHA256\0\0\0\0": exactly 32 bytes, so Noise uses it as h and ck unhashed.
inline constexpr uint8_t kProtocolName[kHashBytes] = {'N', 'o', 'i', 's', 'e', '_', 'X', 'X', '_', '2', '5',
                                                       '5', '1', '9', '_', 'A', 'E', 'S', 'G', 'C', 'M', '_',
                                                       'S', 'H', 'A', '2', '5', '6', 0,   0,   0,   0};
// The connection header "WA", 6, dictionary version; sent once, before the first frame.
inline constexpr size_t kHeaderBytes = 4;
inline constexpr uint8_t kHeaderMagic[3] = {'W', 'A', 6};
// Edge routing pre-header: "ED", 0, 1, a 3-byte big-endian length, then the routing bytes.
inline constexpr uint8_t kRoutingMagic[4] = {'E', 'D', 0, 1};
inline constexpr size_t kRoutingHeaderBytes = 7;
// WhatsApp's certificate root (an X25519 public key; docs/protocol.md §5).
inline constexpr uint8_t kWhatsAppRootKey[kKeyBytes] = {
    0x14, 0x23, 0x75, 0x57, 0x4d, 0x0a, 0x58, 0x71, 0x66, 0xaa, 0xe7, 0x1e, 0xbe, 0x51, 0x64, 0x37,
    0xc4, 0xa2, 0x8b, 0x73, 0xe3, 0x69, 0x5c, 0x6c, 0xe1, 0xf7, 0xf9, 0x54, 0x5d, 0xa8, 0xee, 0x6b};
// The intermediate certificate's issuer is the root, serial 0.
inline constexpr uint64_t kRootSerial = 0;

// The 12-byte nonce for a counter.
void nonce(uint64_t counter, uint8_t out[12]);

struct SymmetricState {
  uint8_t h[kHashBytes];
  uint8_t ck[kHashBytes];
  uint8_t k[kKeyBytes];
  uint64_t counter;
  bool has_key;

  // h = ck = protocol name, then authenticate(header).
  void init(const uint8_t header[kHeaderBytes]);
  // h = SHA-256(h || data).
  void authenticate(Bytes data);
  // HKDF-SHA256(salt = ck, ikm, info "", 64) -> ck, k; counter = 0.
  void mix_key(Bytes ikm);
  // AES-256-GCM(k, nonce(counter), aad = h); then h absorbs the ciphertext. out: in.size() + 16.
  // Errors: noise_state (no key yet), noise_counter.
  Error encrypt(Bytes in, uint8_t* out);
  // out: in.size() - 16, not overlapping in. On any error nothing changes. Errors: data_length,
  // auth_tag, noise_state, noise_counter.
  Error decrypt(Bytes in, uint8_t* out);
  // HKDF-SHA256(salt = ck, empty ikm, info "", 64) -> first [0:32], second [32:64].
  void split(uint8_t first[kKeyBytes], uint8_t second[kKeyBytes]) const;
  void wipe() noexcept;
};

// One direction of the transport: a key and a counter from 0, empty AAD. The key is kept expanded
// (AES round keys and GHASH's H): it never changes, and expanding it per frame cost more than
// encrypting a typical frame (docs/noise.md, Measurements).
struct CipherState {
  aes::GcmKey key;
  uint64_t counter;

  // Expands key and sets the counter to 0.
  void init(const uint8_t key_bytes[kKeyBytes]);

  // out: in.size() + 16. Errors: noise_counter.
  Error encrypt(Bytes in, uint8_t* out);
  // out: in.size() - 16; the counter advances only when the tag is valid. Errors: data_length,
  // auth_tag, noise_counter.
  Error decrypt(Bytes in, uint8_t* out);
  void wipe() noexcept;
};

struct Transport {
  CipherState write, read;
  void wipe() noexcept;
};

// Checks a CertChain (protobuf bytes) as WhatsApp's clients should: the intermediate's details are
// signed (XEdDSA) by root_key and name issuer serial 0 and a 32-byte key; the leaf's details are
// signed by that key and name the intermediate's serial as issuer and server_static as key; both are
// valid at `now` (seconds since the epoch; not_before <= now <= not_after). Errors: noise_cert,
// noise_cert_signature, noise_cert_serial, noise_cert_key, noise_cert_time.
Error verify_cert_chain(Bytes chain, const uint8_t server_static[kKeyBytes], const uint8_t root_key[kKeyBytes],
                        uint64_t now);

// A signed chain for a responder (tests, and servers that are not WhatsApp): the intermediate with
// `intermediate_serial` signed by root_private, the leaf naming leaf_key signed by intermediate_private.
struct CertSpec {
  uint64_t intermediate_serial;
  uint64_t leaf_serial;
  uint64_t not_before;
  uint64_t not_after;
};
Error make_cert_chain(const CertSpec& spec, const uint8_t root_private[kKeyBytes],
                      const uint8_t intermediate_private[kKeyBytes], const uint8_t leaf_key[kKeyBytes],
                      std::vector<uint8_t>& out);

// Options for the client's check of the server.
struct ClientOptions {
  const uint8_t* root_key = kWhatsAppRootKey;  // 32 bytes
  uint64_t now = 0;                            // seconds since the epoch
};

// The XX handshake on unframed HandshakeMessage bytes. Either role; each step may be called once, in
// order, and any failure is final (stage becomes failed).
class Handshake {
 public:
  enum class Stage : uint8_t { fresh, client_sent_hello, responder_sent_hello, done, split, failed };

  // Both roles start from the connection header (kHeaderBytes). ephemeral_private: 32 bytes to use
  // instead of a fresh key (tests and vectors), or null.
  Error init(const uint8_t header[kHeaderBytes], const uint8_t* ephemeral_private);

  // Client, step 1: HandshakeMessage{clientHello{ephemeral}}, appended to out.
  Error client_hello(std::vector<uint8_t>& out);
  // Client, steps 2 and 3: reads serverHello (checks the certificate chain), then appends
  // HandshakeMessage{clientFinish{Enc(static public), Enc(payload)}} to out. static_private is the
  // client's long-term Noise key; payload the ClientPayload protobuf.
  Error client_finish(Bytes server_hello, const uint8_t static_private[kKeyBytes], Bytes payload,
                      const ClientOptions& options, std::vector<uint8_t>& out);

  // Responder, step 2: reads clientHello, appends serverHello{ephemeral, Enc(static), Enc(cert_chain)}.
  Error responder_hello(Bytes client_hello, const uint8_t static_private[kKeyBytes], Bytes cert_chain,
                        std::vector<uint8_t>& out);
  // Responder, step 3: reads clientFinish; gives the client's static public key and its payload.
  Error responder_finish(Bytes client_finish, uint8_t client_static[kKeyBytes], std::vector<uint8_t>& payload);

  // After the last step: the transport keys (client writes with [0:32], the responder mirrors).
  // Wipes the handshake state.
  Error split(Transport& out);

  Stage stage() const { return stage_; }
  const uint8_t* hash() const { return ss_.h; }
  const SymmetricState& symmetric() const { return ss_; }
  void wipe() noexcept;
  // Ends the handshake as failed (a step could not finish: out of memory).
  void abandon() noexcept {
    wipe();
    stage_ = Stage::failed;
  }

 private:
  Error fail(Error e);

  SymmetricState ss_{};
  uint8_t e_private_[kKeyBytes]{};
  uint8_t e_public_[kKeyBytes]{};
  uint8_t re_[kKeyBytes]{};  // the peer's ephemeral
  bool responder_ = false;
  Stage stage_ = Stage::fresh;
};

// Cuts a byte stream into frames (3-byte big-endian length, then the payload). Bytes may arrive in
// chunks of any size; next() hands out each complete frame once.
class FrameReader {
 public:
  explicit FrameReader(size_t max_frame = kDefaultMaxFrameBytes) : max_(max_frame) {}
  void set_max(size_t max_frame) { max_ = max_frame < kMaxFrameBytes ? max_frame : kMaxFrameBytes; }
  void feed(Bytes chunk);
  // A complete frame (a view valid until the next feed or compact), or false when more bytes are
  // needed. Errors: noise_frame_too_large (the stream cannot continue after it).
  Error next(Bytes& frame, bool& have);
  // Drops the consumed bytes (called between chunks; cheap when nothing is buffered).
  void compact();
  size_t buffered() const { return buf_.size() - pos_; }
  // The buffered, unconsumed bytes, and a way to consume some without framing (the intro).
  Bytes pending() const { return {buf_.data() + pos_, buf_.size() - pos_}; }
  void skip(size_t n) { pos_ += n < buffered() ? n : buffered(); }
  // Hands the last n consumed bytes out again (a frame that could not be processed).
  void unread(size_t n) { pos_ -= n < pos_ ? n : pos_; }
  // Drops what was fed after the first n unconsumed bytes (a chunk given back); nothing consumed.
  void truncate(size_t n) { buf_.resize(pos_ + (n < buffered() ? n : buffered())); }
  void clear();

 private:
  std::vector<uint8_t> buf_;
  size_t pos_ = 0;
  size_t max_;
  bool broken_ = false;
};

// Writes the 3-byte length of a frame. Errors: noise_frame_too_large.
Error frame_header(size_t len, uint8_t out[3]);

// One connection: the intro (pre-header and header), handshake frames, then transport frames.
class Connection {
 public:
  enum class Role : uint8_t { client, responder };

  // routing: edge-routing bytes sent before the header (client), or empty. dict_version: the
  // header's 4th byte (2 or 3). A responder accepts only that version. Errors: noise_header.
  Error init(Role role, uint8_t dict_version, Bytes routing, const uint8_t* ephemeral_private,
             size_t max_frame = kDefaultMaxFrameBytes);

  // Client: intro and the framed clientHello.
  Error client_start(std::vector<uint8_t>& out);
  // Client: feeds received bytes; once the serverHello frame is complete, appends the framed
  // clientFinish to out and sets done. Until then done stays false and out untouched.
  Error client_read_server_hello(Bytes chunk, const uint8_t static_private[kKeyBytes], Bytes payload,
                                 const ClientOptions& options, std::vector<uint8_t>& out, bool& done);

  // Responder: feeds received bytes (intro included); once clientHello is complete, appends the
  // framed serverHello to out and sets done.
  Error responder_read_client_hello(Bytes chunk, const uint8_t static_private[kKeyBytes], Bytes cert_chain,
                                    std::vector<uint8_t>& out, bool& done);
  // Responder: once clientFinish is complete, gives the client's static key and payload, sets done.
  Error responder_read_client_finish(Bytes chunk, uint8_t client_static[kKeyBytes], std::vector<uint8_t>& payload,
                                     bool& done);

  // Switches to transport (after the last handshake step). Bytes already buffered stay buffered.
  Error finish();

  // Transport: appends 3-byte length || AEAD(plaintext) to out.
  Error encrypt_frame(Bytes plaintext, std::vector<uint8_t>& out);
  // Transport: feeds a chunk and decrypts every complete frame, appending each plaintext to out as a
  // 4-byte little-endian length then the bytes; count receives how many. A frame that fails to
  // authenticate is dropped without touching the counter, decoding stops there and its error is
  // returned (frames before it were delivered, bytes after it stay buffered for the next call).
  // Out of memory: with frames decrypted before it, the call returns them and
  // Error::out_of_memory, the chunk taken and the rest buffered; with none, it throws
  // std::bad_alloc with nothing taken (the chunk is to be given again) and nothing changed.
  Error decrypt_frames(Bytes chunk, std::vector<uint8_t>& out, size_t& count);

  // Ends the handshake as failed (a step's results could not be handed out: out of memory).
  void abandon_handshake() noexcept { hs_.abandon(); }
  bool transport_ready() const { return ready_; }
  size_t buffered() const { return reader_.buffered(); }
  const uint8_t* handshake_hash() const { return hs_.hash(); }
  uint64_t read_counter() const { return transport_.read.counter; }
  uint64_t write_counter() const { return transport_.write.counter; }
  void wipe() noexcept;

 private:
  Error next_handshake_frame(Bytes chunk, Bytes& frame, bool& have);
  Error append_frame(Bytes message, std::vector<uint8_t>& out);

  Role role_ = Role::client;
  uint8_t header_[kHeaderBytes]{};
  std::vector<uint8_t> routing_;
  bool intro_done_ = false;  // client: intro sent; responder: intro read
  bool ready_ = false;
  Handshake hs_;
  FrameReader reader_;
  Transport transport_{};
};

}  // namespace wacore::noise
