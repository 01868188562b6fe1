#include "noise/noise.h"

#include <sodium.h>

#include <cstring>

#include "common/bytes.h"
#include "crypto/aes_modes.h"
#include "crypto/curve25519.h"
#include "crypto/hash.h"
#include "noise/proto.h"

namespace wacore::noise {
namespace {

constexpr size_t kNonceBytes = 12;

// X25519 into a buffer that the caller wipes; a low-order peer key is an error, never an all-zero
// secret mixed into the keys.
Error dh(const uint8_t public_key[kKeyBytes], const uint8_t private_key[kKeyBytes], uint8_t out[kKeyBytes]) {
  return curve::agreement(public_key, private_key, out);
}

void put24(size_t v, uint8_t* out) {
  out[0] = static_cast<uint8_t>(v >> 16);
  out[1] = static_cast<uint8_t>(v >> 8);
  out[2] = static_cast<uint8_t>(v);
}

size_t get24(const uint8_t* in) { return size_t{in[0]} << 16 | size_t{in[1]} << 8 | in[2]; }

}  // namespace

void nonce(uint64_t counter, uint8_t out[kNonceBytes]) {
  std::memset(out, 0, 8);
  out[8] = static_cast<uint8_t>(counter >> 24);
  out[9] = static_cast<uint8_t>(counter >> 16);
  out[10] = static_cast<uint8_t>(counter >> 8);
  out[11] = static_cast<uint8_t>(counter);
}

// --- symmetric state -------------------------------------------------------------------------------

void SymmetricState::init(const uint8_t header[kHeaderBytes]) {
  std::memcpy(h, kProtocolName, kHashBytes);
  std::memcpy(ck, kProtocolName, kHashBytes);
  std::memset(k, 0, kKeyBytes);
  counter = 0;
  has_key = false;
  authenticate({header, kHeaderBytes});
}

void SymmetricState::authenticate(Bytes data) {
  hash::Stream s;
  s.init(hash::Algorithm::sha256);
  s.update({h, kHashBytes});
  s.update(data);
  s.final(h);
}

void SymmetricState::mix_key(Bytes ikm) {
  uint8_t out[2 * kKeyBytes];
  hash::hkdf(ikm, {ck, kHashBytes}, {}, out);  // 64 bytes: within HKDF's limit, cannot fail
  std::memcpy(ck, out, kHashBytes);
  std::memcpy(k, out + kHashBytes, kKeyBytes);
  sodium_memzero(out, sizeof out);
  counter = 0;
  has_key = true;
}

Error SymmetricState::encrypt(Bytes in, uint8_t* out) {
  if (!has_key) return Error::noise_state;
  if (counter >= kMaxCounter) return Error::noise_counter;
  uint8_t iv[kNonceBytes];
  nonce(counter, iv);
  if (Error e = aes::gcm_seal(k, iv, {h, kHashBytes}, nonnull(in), in.size(), out); e != Error::ok) return e;
  authenticate({out, in.size() + kTagBytes});
  counter++;
  return Error::ok;
}

Error SymmetricState::decrypt(Bytes in, uint8_t* out) {
  if (!has_key) return Error::noise_state;
  if (in.size() < kTagBytes) return Error::data_length;
  if (counter >= kMaxCounter) return Error::noise_counter;
  uint8_t iv[kNonceBytes];
  nonce(counter, iv);
  // gcm_open checks the tag before writing plaintext; h and the counter move only after that.
  if (Error e = aes::gcm_open(k, iv, {h, kHashBytes}, in.data(), in.size(), out); e != Error::ok) return e;
  authenticate(in);
  counter++;
  return Error::ok;
}

void SymmetricState::split(uint8_t first[kKeyBytes], uint8_t second[kKeyBytes]) const {
  uint8_t out[2 * kKeyBytes];
  hash::hkdf({}, {ck, kHashBytes}, {}, out);
  std::memcpy(first, out, kKeyBytes);
  std::memcpy(second, out + kKeyBytes, kKeyBytes);
  sodium_memzero(out, sizeof out);
}

void SymmetricState::wipe() noexcept { sodium_memzero(this, sizeof *this); }

// --- transport ciphers ---------------------------------------------------------------------------------

void CipherState::init(const uint8_t key_bytes[kKeyBytes]) {
  key.init(key_bytes);
  counter = 0;
}

Error CipherState::encrypt(Bytes in, uint8_t* out) {
  if (counter >= kMaxCounter) return Error::noise_counter;
  uint8_t iv[kNonceBytes];
  nonce(counter, iv);
  if (Error e = aes::gcm_seal(key, iv, {}, nonnull(in), in.size(), out); e != Error::ok) return e;
  counter++;
  return Error::ok;
}

Error CipherState::decrypt(Bytes in, uint8_t* out) {
  if (in.size() < kTagBytes) return Error::data_length;
  if (counter >= kMaxCounter) return Error::noise_counter;
  uint8_t iv[kNonceBytes];
  nonce(counter, iv);
  if (Error e = aes::gcm_open(key, iv, {}, in.data(), in.size(), out); e != Error::ok) return e;
  counter++;
  return Error::ok;
}

void CipherState::wipe() noexcept { sodium_memzero(this, sizeof *this); }
void Transport::wipe() noexcept {
  write.wipe();
  read.wipe();
}

// --- certificates ------------------------------------------------------------------------------------

Error verify_cert_chain(Bytes chain, const uint8_t server_static[kKeyBytes], const uint8_t root_key[kKeyBytes],
                        uint64_t now) {
  proto::CertChain c;
  if (Error e = proto::parse_cert_chain(chain, c); e != Error::ok) return e;
  proto::Details inter, leaf;
  if (Error e = proto::parse_details(c.intermediate.details, inter); e != Error::ok) return e;
  if (Error e = proto::parse_details(c.leaf.details, leaf); e != Error::ok) return e;
  if (c.intermediate.signature.size() != curve::kSignatureBytes || c.leaf.signature.size() != curve::kSignatureBytes ||
      inter.key.size() != kKeyBytes) {
    return Error::noise_cert;
  }
  // Every input here is public: signatures and comparisons may take variable time.
  if (!curve::verify(root_key, c.intermediate.details, c.intermediate.signature.data())) {
    return Error::noise_cert_signature;
  }
  if (inter.issuer_serial != kRootSerial) return Error::noise_cert_serial;
  if (!curve::verify(inter.key.data(), c.leaf.details, c.leaf.signature.data())) return Error::noise_cert_signature;
  if (leaf.issuer_serial != inter.serial) return Error::noise_cert_serial;
  if (leaf.key.size() != kKeyBytes || !hash::equal(leaf.key.data(), server_static, kKeyBytes)) {
    return Error::noise_cert_key;
  }
  for (const proto::Details* d : {&inter, &leaf}) {
    if (now < d->not_before || now > d->not_after) return Error::noise_cert_time;
  }
  return Error::ok;
}

Error make_cert_chain(const CertSpec& spec, const uint8_t root_private[kKeyBytes],
                      const uint8_t intermediate_private[kKeyBytes], const uint8_t leaf_key[kKeyBytes],
                      std::vector<uint8_t>& out) {
  uint8_t inter_public[kKeyBytes];
  if (Error e = curve::public_from_private(intermediate_private, inter_public); e != Error::ok) return e;
  proto::Details inter{spec.intermediate_serial, kRootSerial, {inter_public, kKeyBytes}, spec.not_before,
                       spec.not_after};
  proto::Details leaf{spec.leaf_serial, spec.intermediate_serial, {leaf_key, kKeyBytes}, spec.not_before,
                      spec.not_after};
  std::vector<uint8_t> inter_bytes, leaf_bytes;
  if (Error e = proto::write_details(inter, inter_bytes); e != Error::ok) return e;
  if (Error e = proto::write_details(leaf, leaf_bytes); e != Error::ok) return e;
  uint8_t inter_sig[curve::kSignatureBytes], leaf_sig[curve::kSignatureBytes];
  if (Error e = curve::sign(root_private, inter_bytes, inter_sig); e != Error::ok) return e;
  if (Error e = curve::sign(intermediate_private, leaf_bytes, leaf_sig); e != Error::ok) return e;
  proto::CertChain chain{{leaf_bytes, {leaf_sig, sizeof leaf_sig}}, {inter_bytes, {inter_sig, sizeof inter_sig}}};
  return proto::write_cert_chain(chain, out);
}

// --- handshake ---------------------------------------------------------------------------------------

Error Handshake::init(const uint8_t header[kHeaderBytes], const uint8_t* ephemeral_private) {
  wipe();
  ss_.init(header);
  Error e = Error::ok;
  if (ephemeral_private != nullptr) {
    std::memcpy(e_private_, ephemeral_private, kKeyBytes);
    e = curve::public_from_private(e_private_, e_public_);
  } else {
    e = curve::generate_key_pair(e_private_, e_public_);
  }
  return e == Error::ok ? Error::ok : fail(e);
}

Error Handshake::fail(Error e) {
  wipe();
  stage_ = Stage::failed;
  return e;
}

void Handshake::wipe() noexcept {
  ss_.wipe();
  sodium_memzero(e_private_, sizeof e_private_);
  sodium_memzero(e_public_, sizeof e_public_);
  sodium_memzero(re_, sizeof re_);
  responder_ = false;
  stage_ = Stage::fresh;
}

Error Handshake::client_hello(std::vector<uint8_t>& out) {
  if (stage_ != Stage::fresh) return Error::noise_state;
  ss_.authenticate({e_public_, kKeyBytes});
  proto::Hello hello{{e_public_, kKeyBytes}, {}, {}};
  if (Error e = proto::write_handshake(proto::Kind::client_hello, hello, out); e != Error::ok) return fail(e);
  stage_ = Stage::client_sent_hello;
  return Error::ok;
}

Error Handshake::client_finish(Bytes server_hello, const uint8_t static_private[kKeyBytes], Bytes payload,
                               const ClientOptions& options, std::vector<uint8_t>& out) {
  if (stage_ != Stage::client_sent_hello) return Error::noise_state;
  proto::Hello hello;
  if (Error e = proto::parse_handshake(server_hello, proto::Kind::server_hello, hello); e != Error::ok) return fail(e);
  if (hello.ephemeral.size() != kKeyBytes || hello.static_key.size() != kKeyBytes + kTagBytes ||
      hello.payload.size() < kTagBytes) {
    return fail(Error::noise_message);
  }
  std::memcpy(re_, hello.ephemeral.data(), kKeyBytes);

  uint8_t shared[kKeyBytes];
  uint8_t server_static[kKeyBytes];
  uint8_t static_public[kKeyBytes];
  std::vector<uint8_t> cert(hello.payload.size() - kTagBytes);
  std::vector<uint8_t> enc_payload(payload.size() + kTagBytes);
  uint8_t enc_static[kKeyBytes + kTagBytes];
  // The steps in order, stopping at the first failure; the secrets are wiped once at the end.
  const Error e = [&]() -> Error {
    ss_.authenticate({re_, kKeyBytes});
    if (Error r = dh(re_, e_private_, shared); r != Error::ok) return r;
    ss_.mix_key({shared, kKeyBytes});
    if (Error r = ss_.decrypt(hello.static_key, server_static); r != Error::ok) return r;
    if (Error r = dh(server_static, e_private_, shared); r != Error::ok) return r;
    ss_.mix_key({shared, kKeyBytes});
    if (Error r = ss_.decrypt(hello.payload, cert.data()); r != Error::ok) return r;
    if (Error r = verify_cert_chain(cert, server_static, options.root_key, options.now); r != Error::ok) return r;
    if (Error r = curve::public_from_private(static_private, static_public); r != Error::ok) return r;
    if (Error r = ss_.encrypt({static_public, kKeyBytes}, enc_static); r != Error::ok) return r;
    if (Error r = dh(re_, static_private, shared); r != Error::ok) return r;
    ss_.mix_key({shared, kKeyBytes});
    if (Error r = ss_.encrypt(payload, enc_payload.data()); r != Error::ok) return r;
    proto::Hello finish{{}, {enc_static, sizeof enc_static}, enc_payload};
    return proto::write_handshake(proto::Kind::client_finish, finish, out);
  }();
  sodium_memzero(shared, sizeof shared);
  if (e != Error::ok) return fail(e);
  stage_ = Stage::done;
  return Error::ok;
}

Error Handshake::responder_hello(Bytes client_hello, const uint8_t static_private[kKeyBytes], Bytes cert_chain,
                                 std::vector<uint8_t>& out) {
  if (stage_ != Stage::fresh) return Error::noise_state;
  responder_ = true;
  proto::Hello hello;
  if (Error e = proto::parse_handshake(client_hello, proto::Kind::client_hello, hello); e != Error::ok) return fail(e);
  if (hello.ephemeral.size() != kKeyBytes) return fail(Error::noise_message);
  std::memcpy(re_, hello.ephemeral.data(), kKeyBytes);

  uint8_t shared[kKeyBytes];
  uint8_t static_public[kKeyBytes];
  uint8_t enc_static[kKeyBytes + kTagBytes];
  std::vector<uint8_t> enc_payload(cert_chain.size() + kTagBytes);
  const Error e = [&]() -> Error {
    ss_.authenticate({re_, kKeyBytes});
    ss_.authenticate({e_public_, kKeyBytes});
    if (Error r = dh(re_, e_private_, shared); r != Error::ok) return r;
    ss_.mix_key({shared, kKeyBytes});
    if (Error r = curve::public_from_private(static_private, static_public); r != Error::ok) return r;
    if (Error r = ss_.encrypt({static_public, kKeyBytes}, enc_static); r != Error::ok) return r;
    if (Error r = dh(re_, static_private, shared); r != Error::ok) return r;
    ss_.mix_key({shared, kKeyBytes});
    if (Error r = ss_.encrypt(cert_chain, enc_payload.data()); r != Error::ok) return r;
    proto::Hello reply{{e_public_, kKeyBytes}, {enc_static, sizeof enc_static}, enc_payload};
    return proto::write_handshake(proto::Kind::server_hello, reply, out);
  }();
  sodium_memzero(shared, sizeof shared);
  if (e != Error::ok) return fail(e);
  stage_ = Stage::responder_sent_hello;
  return Error::ok;
}

Error Handshake::responder_finish(Bytes client_finish, uint8_t client_static[kKeyBytes],
                                  std::vector<uint8_t>& payload) {
  if (stage_ != Stage::responder_sent_hello) return Error::noise_state;
  proto::Hello finish;
  if (Error e = proto::parse_handshake(client_finish, proto::Kind::client_finish, finish); e != Error::ok) {
    return fail(e);
  }
  if (finish.static_key.size() != kKeyBytes + kTagBytes || finish.payload.size() < kTagBytes) {
    return fail(Error::noise_message);
  }
  uint8_t shared[kKeyBytes];
  const size_t old = payload.size();
  payload.resize(old + finish.payload.size() - kTagBytes);
  const Error e = [&]() -> Error {
    if (Error r = ss_.decrypt(finish.static_key, client_static); r != Error::ok) return r;
    if (Error r = dh(client_static, e_private_, shared); r != Error::ok) return r;
    ss_.mix_key({shared, kKeyBytes});
    return ss_.decrypt(finish.payload, payload.data() + old);
  }();
  sodium_memzero(shared, sizeof shared);
  if (e != Error::ok) {
    payload.resize(old);
    return fail(e);
  }
  stage_ = Stage::done;
  return Error::ok;
}

Error Handshake::split(Transport& out) {
  if (stage_ != Stage::done) return Error::noise_state;
  // The initiator writes with the first key; the responder mirrors.
  uint8_t first[kKeyBytes], second[kKeyBytes];
  ss_.split(first, second);
  (responder_ ? out.read : out.write).init(first);
  (responder_ ? out.write : out.read).init(second);
  sodium_memzero(first, sizeof first);
  sodium_memzero(second, sizeof second);
  wipe();
  stage_ = Stage::split;
  return Error::ok;
}

// --- framing -------------------------------------------------------------------------------------------

Error frame_header(size_t len, uint8_t out[3]) {
  if (len > kMaxFrameBytes) return Error::noise_frame_too_large;
  put24(len, out);
  return Error::ok;
}

void FrameReader::feed(Bytes chunk) {
  if (chunk.empty()) return;
  buf_.insert(buf_.end(), chunk.begin(), chunk.end());
}

Error FrameReader::next(Bytes& frame, bool& have) {
  have = false;
  if (broken_) return Error::noise_frame_too_large;
  if (buffered() < 3) return Error::ok;
  const size_t len = get24(buf_.data() + pos_);
  if (len > max_) {
    broken_ = true;
    return Error::noise_frame_too_large;
  }
  if (buffered() < 3 + len) return Error::ok;
  frame = {buf_.data() + pos_ + 3, len};
  pos_ += 3 + len;
  have = true;
  return Error::ok;
}

void FrameReader::compact() {
  if (pos_ == 0) return;
  if (pos_ == buf_.size()) {
    buf_.clear();
  } else {
    buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(pos_));
  }
  pos_ = 0;
}

void FrameReader::clear() {
  if (!buf_.empty()) sodium_memzero(buf_.data(), buf_.size());
  buf_.clear();
  pos_ = 0;
  broken_ = false;
}

// --- connection ----------------------------------------------------------------------------------------

namespace {
// Runs a handshake step. An allocation that fails in it ends the handshake as failed, as every
// handshake failure does; the exception goes on to the caller (the export's guard).
template <typename F>
Error final_on_throw(Handshake& hs, F&& step) {
  try {
    return step();
  } catch (...) {
    hs.abandon();
    throw;
  }
}
}  // namespace

Error Connection::init(Role role, uint8_t dict_version, Bytes routing, const uint8_t* ephemeral_private,
                       size_t max_frame) {
  wipe();
  if (dict_version != 2 && dict_version != 3) return Error::noise_header;
  if (routing.size() > kMaxFrameBytes) return Error::noise_header;
  role_ = role;
  std::memcpy(header_, kHeaderMagic, sizeof kHeaderMagic);
  header_[3] = dict_version;
  routing_.assign(routing.begin(), routing.end());
  reader_.set_max(max_frame);
  return hs_.init(header_, ephemeral_private);
}

Error Connection::append_frame(Bytes message, std::vector<uint8_t>& out) {
  uint8_t len[3];
  if (Error e = frame_header(message.size(), len); e != Error::ok) return e;
  out.insert(out.end(), len, len + 3);
  out.insert(out.end(), message.begin(), message.end());
  return Error::ok;
}

Error Connection::client_start(std::vector<uint8_t>& out) {
  return final_on_throw(hs_, [&]() -> Error {
    if (role_ != Role::client || intro_done_) return Error::noise_state;
    std::vector<uint8_t> hello;
    if (Error e = hs_.client_hello(hello); e != Error::ok) return e;
    if (!routing_.empty()) {
      out.insert(out.end(), kRoutingMagic, kRoutingMagic + sizeof kRoutingMagic);
      uint8_t len[3];
      put24(routing_.size(), len);
      out.insert(out.end(), len, len + 3);
      out.insert(out.end(), routing_.begin(), routing_.end());
    }
    out.insert(out.end(), header_, header_ + kHeaderBytes);
    intro_done_ = true;
    return append_frame(hello, out);
  });
}

Error Connection::next_handshake_frame(Bytes chunk, Bytes& frame, bool& have) {
  have = false;
  reader_.compact();
  reader_.feed(chunk);
  if (role_ == Role::responder && !intro_done_) {
    // The intro: an optional routing pre-header, then the 4-byte header this responder speaks.
    const Bytes p = reader_.pending();
    size_t at = 0;
    if (!p.empty() && p[0] == kRoutingMagic[0]) {
      if (p.size() < kRoutingHeaderBytes) return Error::ok;
      if (std::memcmp(p.data(), kRoutingMagic, sizeof kRoutingMagic) != 0) return Error::noise_header;
      const size_t n = get24(p.data() + sizeof kRoutingMagic);
      at = kRoutingHeaderBytes + n;
    }
    if (p.size() < at + kHeaderBytes) return Error::ok;
    if (std::memcmp(p.data() + at, header_, kHeaderBytes) != 0) return Error::noise_header;
    reader_.skip(at + kHeaderBytes);
    intro_done_ = true;
  }
  return reader_.next(frame, have);
}

Error Connection::client_read_server_hello(Bytes chunk, const uint8_t static_private[kKeyBytes], Bytes payload,
                                           const ClientOptions& options, std::vector<uint8_t>& out,
                                           bool& done) {
  return final_on_throw(hs_, [&]() -> Error {
    done = false;
    if (role_ != Role::client || hs_.stage() != Handshake::Stage::client_sent_hello) return Error::noise_state;
    Bytes frame;
    bool have = false;
    if (Error e = next_handshake_frame(chunk, frame, have); e != Error::ok || !have) return e;
    std::vector<uint8_t> message;
    if (Error e = hs_.client_finish(frame, static_private, payload, options, message); e != Error::ok) return e;
    done = true;
    return append_frame(message, out);
  });
}

Error Connection::responder_read_client_hello(Bytes chunk, const uint8_t static_private[kKeyBytes], Bytes cert_chain,
                                              std::vector<uint8_t>& out, bool& done) {
  return final_on_throw(hs_, [&]() -> Error {
    done = false;
    if (role_ != Role::responder || hs_.stage() != Handshake::Stage::fresh) return Error::noise_state;
    Bytes frame;
    bool have = false;
    if (Error e = next_handshake_frame(chunk, frame, have); e != Error::ok || !have) return e;
    std::vector<uint8_t> message;
    if (Error e = hs_.responder_hello(frame, static_private, cert_chain, message); e != Error::ok) return e;
    done = true;
    return append_frame(message, out);
  });
}

Error Connection::responder_read_client_finish(Bytes chunk, uint8_t client_static[kKeyBytes],
                                               std::vector<uint8_t>& payload, bool& done) {
  return final_on_throw(hs_, [&]() -> Error {
    done = false;
    if (role_ != Role::responder || hs_.stage() != Handshake::Stage::responder_sent_hello) return Error::noise_state;
    Bytes frame;
    bool have = false;
    if (Error e = next_handshake_frame(chunk, frame, have); e != Error::ok || !have) return e;
    if (Error e = hs_.responder_finish(frame, client_static, payload); e != Error::ok) return e;
    done = true;
    return Error::ok;
  });
}

Error Connection::finish() {
  if (ready_) return Error::noise_state;
  if (Error e = hs_.split(transport_); e != Error::ok) return e;
  ready_ = true;
  return Error::ok;
}

Error Connection::encrypt_frame(Bytes plaintext, std::vector<uint8_t>& out) {
  if (!ready_) return Error::noise_state;
  const size_t n = plaintext.size() + kTagBytes;
  if (n > kMaxFrameBytes) return Error::noise_frame_too_large;
  const size_t old = out.size();
  out.resize(old + 3 + n);
  put24(n, out.data() + old);
  if (Error e = transport_.write.encrypt(plaintext, out.data() + old + 3); e != Error::ok) {
    out.resize(old);
    return e;
  }
  return Error::ok;
}

Error Connection::decrypt_frames(Bytes chunk, std::vector<uint8_t>& out, size_t& count) {
  count = 0;
  if (!ready_) return Error::noise_state;
  reader_.compact();
  const size_t before = reader_.buffered();
  reader_.feed(chunk);  // throws with nothing changed when the chunk cannot be buffered
  for (;;) {
    Bytes frame;
    bool have = false;
    if (Error e = reader_.next(frame, have); e != Error::ok || !have) return e;
    if (frame.size() < kTagBytes) return Error::data_length;  // dropped: no frame is that short
    const size_t n = frame.size() - kTagBytes;
    const size_t old = out.size();
    try {
      out.resize(old + 4 + n);
    } catch (...) {
      // Out of memory: the frame goes back, undecrypted, the counter untouched. With frames before
      // it, the call returns them and out_of_memory (the chunk was taken; what is left waits in the
      // buffer for the next call); with none, the chunk is given back too, so that out of memory
      // with no frames always means "nothing taken".
      reader_.unread(3 + frame.size());
      if (count > 0) return Error::out_of_memory;
      reader_.truncate(before);
      throw;
    }
    uint8_t* p = out.data() + old;
    p[0] = static_cast<uint8_t>(n);
    p[1] = static_cast<uint8_t>(n >> 8);
    p[2] = static_cast<uint8_t>(n >> 16);
    p[3] = static_cast<uint8_t>(n >> 24);
    if (Error e = transport_.read.decrypt(frame, p + 4); e != Error::ok) {
      out.resize(old);
      return e;
    }
    count++;
  }
}

void Connection::wipe() noexcept {
  hs_.wipe();
  transport_.wipe();
  reader_.clear();
  if (!routing_.empty()) sodium_memzero(routing_.data(), routing_.size());
  routing_.clear();
  intro_done_ = false;
  ready_ = false;
}

}  // namespace wacore::noise
