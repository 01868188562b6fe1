#include "binary/codec.h"


#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "binary/tape.h"
#include "binary/tokens_generated.h"
#include "common/inflate.h"

namespace wacore::binary {
namespace {

// --- tokens ------------------------------------------------------------------------------------------

struct Table {
  const std::string_view* strings;
  const uint16_t* slots;
};

Table table(Dict dict) {
  return dict == Dict::v2 ? Table{tokens::kStringsV2, tokens::kSlotsV2} : Table{tokens::kStringsV3, tokens::kSlotsV3};
}

// Must match scripts/gen-tokens.mjs.
uint32_t fnv1a(std::string_view s) {
  uint32_t h = 0x811c9dc5u;
  for (unsigned char c : s) h = (h ^ c) * 0x01000193u;
  return h;
}

bool valid_dict(Dict d) { return d == Dict::v2 || d == Dict::v3; }

// --- strings: what fits the packed forms, and JIDs ------------------------------------------------------

// Nibble alphabet: 0-9 -> 0..9, '-' -> 10, '.' -> 11; 15 pads an odd length.
int nibble_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c == '-') return 10;
  if (c == '.') return 11;
  return -1;
}
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;  // lower case is not packable: it would decode as upper case
}
constexpr char kNibbleChars[] = "0123456789-.";
constexpr char kHexChars[] = "0123456789ABCDEF";

bool all_of(std::string_view s, int (*value)(char)) {
  for (char c : s) {
    if (value(c) < 0) return false;
  }
  return true;
}

// Parses a canonical decimal number (no sign, no leading zeros) up to max.
bool parse_decimal(std::string_view s, uint32_t max, uint32_t& out) {
  if (s.empty() || s.size() > 5 || (s.size() > 1 && s[0] == '0')) return false;
  uint32_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint32_t>(c - '0');
  }
  if (v > max) return false;
  out = v;
  return true;
}

void append_decimal(std::string& out, uint32_t v) {
  char buf[10];
  int n = 0;
  do {
    buf[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0) out.push_back(buf[--n]);
}

std::string_view domain_server(uint8_t domain) {
  switch (domain) {
    case kDomainWhatsapp: return "s.whatsapp.net";
    case kDomainLid: return "lid";
    case kDomainHosted: return "hosted";
    case kDomainHostedLid: return "hosted.lid";
    default: return {};
  }
}

int server_domain(std::string_view server) {
  if (server == "s.whatsapp.net") return kDomainWhatsapp;
  if (server == "lid") return kDomainLid;
  if (server == "hosted") return kDomainHosted;
  if (server == "hosted.lid") return kDomainHostedLid;
  return -1;
}

// A string that the encoder writes as a JID, split into its wire fields. Only forms that decode
// back to the very same text are accepted; anything else is written as raw bytes.
struct Jid {
  enum Kind { pair, ad, fb, interop } kind;
  std::string_view user, server;
  uint32_t device = 0, domain = 0, integrator = 0;
};

bool parse_jid(std::string_view s, Jid& j) {
  const size_t at = s.find('@');
  if (at == std::string_view::npos) return false;
  std::string_view user = s.substr(0, at);
  j.server = s.substr(at + 1);
  if (j.server.empty()) return false;  // JID_PAIR needs a server
  const size_t colon = user.find(':');
  if (j.server == "interop") {
    // integrator-user[:device]@interop
    const size_t dash = user.find('-');
    if (dash == std::string_view::npos || !parse_decimal(user.substr(0, dash), 0xFFFF, j.integrator)) return false;
    std::string_view rest = user.substr(dash + 1);
    const size_t c = rest.find(':');
    j.device = 0;
    if (c != std::string_view::npos && !parse_decimal(rest.substr(c + 1), 0xFFFF, j.device)) return false;
    j.user = rest.substr(0, c);
    if (j.user.empty() || (c != std::string_view::npos && j.device == 0)) return false;
    j.kind = Jid::interop;
    return true;
  }
  if (colon == std::string_view::npos) {
    j.kind = Jid::pair;
    j.user = user;
    return true;
  }
  std::string_view dev = user.substr(colon + 1);
  user = user.substr(0, colon);
  if (j.server == "msgr") {
    if (!parse_decimal(dev, 0xFFFF, j.device) || j.device == 0 || user.empty()) return false;
    j.kind = Jid::fb;
    j.user = user;
    return true;
  }
  // user[_agent]:device@server as AD_JID. Device 0 is written (as Baileys does) and decodes without
  // ":0", the one deliberate text change; see README.
  if (!parse_decimal(dev, 255, j.device)) return false;
  const size_t underscore = user.find('_');
  if (underscore != std::string_view::npos) {
    // An agent is the domain byte itself, for domains other than the four named ones.
    uint32_t agent = 0;
    if (j.server != "s.whatsapp.net" || !parse_decimal(user.substr(underscore + 1), 255, agent)) return false;
    if (!domain_server(static_cast<uint8_t>(agent)).empty()) return false;
    j.domain = agent;
    user = user.substr(0, underscore);
  } else {
    const int d = server_domain(j.server);
    if (d < 0) return false;
    j.domain = static_cast<uint32_t>(d);
  }
  j.kind = Jid::ad;
  j.user = user;
  return true;
}

// --- decoder -------------------------------------------------------------------------------------------

// A decoded string: a token id (text = its table entry) or text in a buffer of the decoder's.
struct Str {
  int token;  // -1 when not a token
  std::string_view text;
};

// Reads one node and reports it to Sink (TreeSink or TapeSink) as it goes.
template <typename Sink>
class Decoder {
 public:
  Decoder(std::span<const uint8_t> in, Dict dict, Sink& sink)
      : p_(in.data()), end_(in.data() + in.size()), table_(table(dict)), dict_(dict), sink_(sink) {}

  Error run() {
    if (Error e = node(); e != Error::ok) return e;
    return p_ == end_ ? Error::ok : Error::binary_leftover;
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  Table table_;
  Dict dict_;
  Sink& sink_;
  size_t depth_ = 0;
  // Text buffers: one per nesting level of string reads (a JID reads its user and server inside).
  std::string text_[3];

  size_t left() const { return static_cast<size_t>(end_ - p_); }

  Error byte(uint8_t& v) {
    if (p_ == end_) return Error::binary_truncated;
    v = *p_++;
    return Error::ok;
  }

  Error be(size_t n, uint32_t& v) {
    if (left() < n) return Error::binary_truncated;
    v = 0;
    for (size_t i = 0; i < n; i++) v = v << 8 | *p_++;
    return Error::ok;
  }

  static bool is_list(uint8_t t) { return t == tag::kListEmpty || t == tag::kList8 || t == tag::kList16; }

  Error list_size(uint8_t t, uint32_t& n) {
    if (t == tag::kListEmpty) {
      n = 0;
      return Error::ok;
    }
    if (t == tag::kList8) return be(1, n);
    if (t == tag::kList16) return be(2, n);
    return Error::binary_tag;
  }

  Error length(uint8_t t, uint32_t& n) {
    Error e = Error::binary_tag;
    if (t == tag::kBinary8) e = be(1, n);
    if (t == tag::kBinary20) {
      e = be(3, n);
      n &= 0xFFFFF;  // BINARY_20 uses the low 20 bits
    }
    if (t == tag::kBinary32) e = be(4, n);
    if (e == Error::ok && n > left()) return Error::binary_truncated;  // lengths are bounded by the input
    return e;
  }

  Error packed(uint8_t t, std::string& out) {
    uint8_t head;
    if (Error e = byte(head); e != Error::ok) return e;
    const size_t n = head & 0x7F;
    const bool odd = head & 0x80;
    if (left() < n) return Error::binary_truncated;
    if (odd && n == 0) return Error::binary_packed;
    const char* chars = t == tag::kNibble8 ? kNibbleChars : kHexChars;
    const unsigned limit = t == tag::kNibble8 ? 12 : 16;
    out.resize(2 * n - (odd ? 1 : 0));
    for (size_t i = 0; i < n; i++) {
      const uint8_t b = *p_++;
      const unsigned hi = b >> 4, lo = b & 15;
      if (hi >= limit) return Error::binary_packed;
      out[2 * i] = chars[hi];
      if (i + 1 == n && odd) {
        if (lo != 15) return Error::binary_packed;  // the padding nibble
      } else {
        if (lo >= limit) return Error::binary_packed;
        out[2 * i + 1] = chars[lo];
      }
    }
    return Error::ok;
  }

  // Reads the string whose tag byte t was just read; level picks the text buffer.
  Error string(uint8_t t, Str& s, int level) {
    if (t < tokens::kSingleCount) {
      // 1..235 are tokens; 0 (LIST_EMPTY) reads as "" here, as every peer decodes it.
      s = {t, table_.strings[t]};
      return Error::ok;
    }
    if (t < tag::kDictionary0 + 4) {
      uint8_t i;
      if (Error e = byte(i); e != Error::ok) return e;
      const int id = tokens::kSingleCount + 256 * (t - tag::kDictionary0) + i;
      s = {id, table_.strings[id]};
      return Error::ok;
    }
    std::string& out = text_[level];
    switch (t) {
      case tag::kBinary8:
      case tag::kBinary20:
      case tag::kBinary32: {
        uint32_t n;
        if (Error e = length(t, n); e != Error::ok) return e;
        s = {-1, std::string_view(reinterpret_cast<const char*>(p_), n)};
        p_ += n;
        return Error::ok;
      }
      case tag::kNibble8:
      case tag::kHex8: {
        if (Error e = packed(t, out); e != Error::ok) return e;
        s = {-1, out};
        return Error::ok;
      }
      case tag::kJidPair:
      case tag::kAdJid:
      case tag::kFbJid:
      case tag::kInteropJid: {
        if (level != 0) return Error::binary_jid;  // a JID inside a JID's field
        if (Error e = jid(t, out); e != Error::ok) return e;
        s = {-1, out};
        return Error::ok;
      }
      default:
        return Error::binary_tag;  // 240..244, and list tags where a string belongs
    }
  }

  Error string(Str& s, int level = 0) {
    uint8_t t;
    if (Error e = byte(t); e != Error::ok) return e;
    return string(t, s, level);
  }

  // Reads a JID's fields (user at text level 1, server at level 2, so neither overwrites the other)
  // and writes its text form to out (level 0).
  Error jid(uint8_t t, std::string& out) {
    Str user, server;
    uint32_t device = 0, integrator = 0;
    uint8_t domain = 0, dev8 = 0;
    if (t == tag::kJidPair) {
      if (Error e = string(user, 1); e != Error::ok) return e;
      if (Error e = string(server, 2); e != Error::ok) return e;
      if (server.text.empty()) return Error::binary_jid;
      out.assign(user.text).append("@").append(server.text);
      return Error::ok;
    }
    if (t == tag::kAdJid) {
      if (Error e = byte(domain); e != Error::ok) return e;
      if (Error e = byte(dev8); e != Error::ok) return e;
      if (Error e = string(user, 1); e != Error::ok) return e;
      std::string_view srv = domain_server(domain);
      out.assign(user.text);
      if (srv.empty()) {
        // An unnamed domain type travels as an agent: user_<domain>:device@s.whatsapp.net.
        out.push_back('_');
        append_decimal(out, domain);
        srv = "s.whatsapp.net";
      }
      if (dev8 != 0) {  // device 0 is not written, as Baileys' jidEncode does
        out.push_back(':');
        append_decimal(out, dev8);
      }
      out.append("@").append(srv);
      return Error::ok;
    }
    // FB_JID: user, device (2 bytes), server "msgr". INTEROP_JID: user, device, integrator, "interop".
    if (Error e = string(user, 1); e != Error::ok) return e;
    if (Error e = be(2, device); e != Error::ok) return e;
    if (t == tag::kInteropJid) {
      if (Error e = be(2, integrator); e != Error::ok) return e;
    }
    if (Error e = string(server, 2); e != Error::ok) return e;
    if (server.text != (t == tag::kFbJid ? "msgr" : "interop")) return Error::binary_jid;
    out.clear();
    if (t == tag::kInteropJid) {
      append_decimal(out, integrator);
      out.push_back('-');
    }
    out.append(user.text);
    if (device != 0) {
      out.push_back(':');
      append_decimal(out, device);
    }
    out.append("@").append(server.text);
    return Error::ok;
  }

  Error node() {
    if (++depth_ > kMaxDepth) return Error::binary_depth;
    uint8_t t;
    uint32_t size;
    if (Error e = byte(t); e != Error::ok) return e;
    if (!is_list(t)) return Error::binary_tag;
    if (Error e = list_size(t, size); e != Error::ok) return e;
    if (size == 0) return Error::binary_node;
    const uint32_t attrs = (size - 1) >> 1;
    if (attrs > left() / 2) return Error::binary_truncated;  // each attribute takes 2 bytes or more

    Str s;
    if (Error e = string(s); e != Error::ok) return e;
    if (s.text.empty()) return Error::binary_node;
    sink_.begin(s, attrs);
    for (uint32_t i = 0; i < attrs; i++) {
      Str k, v;
      if (Error e = string(k); e != Error::ok) return e;
      sink_.key(k);
      if (Error e = string(v); e != Error::ok) return e;
      sink_.value(v);
    }
    if (size % 2 == 1) {
      sink_.no_content();
    } else {
      if (Error e = byte(t); e != Error::ok) return e;
      if (is_list(t)) {
        uint32_t n;
        if (Error e = list_size(t, n); e != Error::ok) return e;
        if (n > left() / 2) return Error::binary_truncated;  // each child takes 2 bytes or more
        sink_.begin_children(n);
        for (uint32_t i = 0; i < n; i++) {
          if (Error e = node(); e != Error::ok) return e;
        }
        sink_.end_children();
      } else if (t == tag::kBinary8 || t == tag::kBinary20 || t == tag::kBinary32) {
        uint32_t n;
        if (Error e = length(t, n); e != Error::ok) return e;
        sink_.bytes(p_, n);
        p_ += n;
      } else {
        if (Error e = string(t, s, 0); e != Error::ok) return e;
        sink_.text(s);
      }
    }
    sink_.end();
    depth_--;
    return Error::ok;
  }
};

// Builds a Node tree.
class TreeSink {
 public:
  explicit TreeSink(Node& root) : root_(root) {}
  void begin(Str tag, uint32_t attrs) {
    Node* n = &root_;
    if (!stack_.empty()) {
      stack_.back()->children.emplace_back();
      n = &stack_.back()->children.back();
    }
    n->tag.assign(tag.text);
    n->attrs.reserve(attrs);
    current_ = n;
  }
  void key(Str k) { current_->attrs.emplace_back(std::string(k.text), std::string()); }
  void value(Str v) { current_->attrs.back().second.assign(v.text); }
  void no_content() {}
  void text(Str s) {
    current_->content = Node::Content::text;
    current_->text.assign(s.text);
  }
  void bytes(const uint8_t* p, size_t n) {
    current_->content = Node::Content::bytes;
    current_->bytes.assign(p, p + n);
  }
  void begin_children(uint32_t n) {
    current_->content = Node::Content::children;
    current_->children.reserve(n);
    stack_.push_back(current_);
  }
  void end_children() {
    current_ = stack_.back();
    stack_.pop_back();
  }
  void end() {}

 private:
  Node& root_;
  Node* current_ = nullptr;
  std::vector<Node*> stack_;
};

// Writes a DecodedTape.
class TapeSink {
 public:
  explicit TapeSink(DecodedTape& t) : t_(t) {}
  void begin(Str tag, uint32_t attrs) {
    ref(tag);
    t_.words.push_back(static_cast<int32_t>(attrs));
  }
  void key(Str k) { ref(k); }
  void value(Str v) { ref(v); }
  void no_content() { t_.words.push_back(kContentNone); }
  void text(Str s) {
    t_.words.push_back(kContentText);
    ref(s);
  }
  void bytes(const uint8_t* p, size_t n) {
    t_.words.push_back(kContentBytes);
    t_.words.push_back(static_cast<int32_t>(t_.blob.size()));
    t_.words.push_back(static_cast<int32_t>(n));
    t_.blob.insert(t_.blob.end(), p, p + n);
  }
  void begin_children(uint32_t n) {
    t_.words.push_back(kContentChildren);
    t_.words.push_back(static_cast<int32_t>(n));
  }
  void end_children() {}
  void end() {}

 private:
  DecodedTape& t_;

  void ref(Str s) {
    if (s.token >= 0) {
      t_.words.push_back(s.token);
      return;
    }
    const int32_t k = static_cast<int32_t>(t_.strings.size() / 2);
    t_.strings.push_back(static_cast<int32_t>(t_.pool.size()));
    t_.strings.push_back(static_cast<int32_t>(s.text.size()));
    for (char c : s.text) {
      if (static_cast<unsigned char>(c) >= 0x80) t_.ascii = false;
    }
    t_.pool.insert(t_.pool.end(), s.text.begin(), s.text.end());
    t_.words.push_back(-1 - k);
  }
};

// Strips the flag byte and inflates a compressed frame into scratch, capped at kMaxInflatedBytes.
Error frame_body(std::span<const uint8_t> frame, std::vector<uint8_t>& scratch, std::span<const uint8_t>& body) {
  if (frame.empty()) return Error::binary_truncated;
  body = frame.subspan(1);
  if ((frame[0] & kFlagCompressed) == 0) return Error::ok;

  if (Error e = inflate_capped(body, kMaxInflatedBytes, scratch, Error::binary_inflate, Error::binary_inflate); e != Error::ok)
    return e;
  body = scratch;
  return Error::ok;
}

// --- encoder -------------------------------------------------------------------------------------------

class Encoder {
 public:
  Encoder(Dict dict, std::vector<uint8_t>& out) : dict_(dict), table_(table(dict)), out_(out) {}

  void byte(uint8_t b) { out_.push_back(b); }

  Error list_header(size_t n) {
    if (n == 0) {
      byte(tag::kListEmpty);
    } else if (n < 256) {
      byte(tag::kList8);
      byte(static_cast<uint8_t>(n));
    } else if (n <= kMaxListSize) {
      byte(tag::kList16);
      byte(static_cast<uint8_t>(n >> 8));
      byte(static_cast<uint8_t>(n));
    } else {
      return Error::binary_too_large;
    }
    return Error::ok;
  }

  Error bytes(const uint8_t* p, size_t n) {
    if (n < 256) {
      byte(tag::kBinary8);
      byte(static_cast<uint8_t>(n));
    } else if (n < (1u << 20)) {
      byte(tag::kBinary20);
      byte(static_cast<uint8_t>(n >> 16));
      byte(static_cast<uint8_t>(n >> 8));
      byte(static_cast<uint8_t>(n));
    } else if (n <= 0xFFFFFFFFu) {
      byte(tag::kBinary32);
      for (int s = 24; s >= 0; s -= 8) byte(static_cast<uint8_t>(n >> s));
    } else {
      return Error::binary_too_large;
    }
    out_.insert(out_.end(), p, p + n);
    return Error::ok;
  }

  void token(int id) {
    if (id < tokens::kSingleCount) {
      byte(static_cast<uint8_t>(id));
    } else {
      byte(static_cast<uint8_t>(tag::kDictionary0 + (id - tokens::kSingleCount) / 256));
      byte(static_cast<uint8_t>((id - tokens::kSingleCount) % 256));
    }
  }

  // allow_jid is false for a JID's own fields: a JID never nests inside another.
  Error string(std::string_view s, bool allow_jid = true) {
    if (s.empty()) {
      // Dictionary 2 (Baileys 6) writes "" as byte 00, which every decoder reads back as "";
      // dictionary 3 (Baileys 7, whatsapp-rust) as an empty BINARY_8.
      if (dict_ == Dict::v2) {
        byte(tag::kListEmpty);
      } else {
        byte(tag::kBinary8);
        byte(0);
      }
      return Error::ok;
    }
    if (const int id = lookup(s); id >= 0) {
      token(id);
      return Error::ok;
    }
    if (s.size() <= kPackedMax) {
      if (all_of(s, nibble_value)) return packed(s, tag::kNibble8, nibble_value);
      if (all_of(s, hex_value)) return packed(s, tag::kHex8, hex_value);
    }
    Jid j;
    if (allow_jid && s.find('@') != std::string_view::npos && parse_jid(s, j)) return jid(j);
    return bytes(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  }

  int lookup(std::string_view s) const {
    uint32_t i = fnv1a(s) & (tokens::kSlotCount - 1);
    for (;;) {
      const uint16_t id = table_.slots[i];
      if (id == tokens::kEmptySlot) return -1;
      if (table_.strings[id] == s) return id;
      i = (i + 1) & (tokens::kSlotCount - 1);
    }
  }

 private:
  Dict dict_;
  Table table_;
  std::vector<uint8_t>& out_;

  Error packed(std::string_view s, uint8_t t, int (*value)(char)) {
    byte(t);
    const size_t n = (s.size() + 1) / 2;
    byte(static_cast<uint8_t>(n | (s.size() % 2 ? 0x80 : 0)));
    for (size_t i = 0; i < n; i++) {
      const int hi = value(s[2 * i]);
      const int lo = 2 * i + 1 < s.size() ? value(s[2 * i + 1]) : 15;
      byte(static_cast<uint8_t>(hi << 4 | lo));
    }
    return Error::ok;
  }

  Error jid(const Jid& j) {
    switch (j.kind) {
      case Jid::pair:
        byte(tag::kJidPair);
        if (j.user.empty()) {
          byte(tag::kListEmpty);
        } else if (Error e = string(j.user, false); e != Error::ok) {
          return e;
        }
        return string(j.server, false);
      case Jid::ad:
        byte(tag::kAdJid);
        byte(static_cast<uint8_t>(j.domain));
        byte(static_cast<uint8_t>(j.device));
        return string(j.user, false);
      case Jid::fb:
      case Jid::interop: {
        byte(j.kind == Jid::fb ? tag::kFbJid : tag::kInteropJid);
        if (Error e = string(j.user, false); e != Error::ok) return e;
        byte(static_cast<uint8_t>(j.device >> 8));
        byte(static_cast<uint8_t>(j.device));
        if (j.kind == Jid::interop) {
          byte(static_cast<uint8_t>(j.integrator >> 8));
          byte(static_cast<uint8_t>(j.integrator));
        }
        return string(j.server, false);
      }
    }
    return Error::binary_jid;
  }
};

Error encode_node(Encoder& enc, const Node& n, size_t depth) {
  if (depth > kMaxDepth) return Error::binary_depth;
  if (n.tag.empty()) return Error::binary_node;
  const bool has_content = n.content != Node::Content::none;
  // 1 + 2 * attrs (+ 1 with content) must fit LIST_16: list_header rejects what does not.
  if (n.attrs.size() > (kMaxListSize - 1) / 2) return Error::binary_too_large;
  if (Error e = enc.list_header(1 + 2 * n.attrs.size() + (has_content ? 1 : 0)); e != Error::ok) return e;
  if (Error e = enc.string(n.tag); e != Error::ok) return e;
  for (const auto& [k, v] : n.attrs) {
    if (Error e = enc.string(k); e != Error::ok) return e;
    if (Error e = enc.string(v); e != Error::ok) return e;
  }
  switch (n.content) {
    case Node::Content::none: return Error::ok;
    case Node::Content::text: return enc.string(n.text);
    case Node::Content::bytes: return enc.bytes(n.bytes.data(), n.bytes.size());
    case Node::Content::children:
      if (Error e = enc.list_header(n.children.size()); e != Error::ok) return e;
      for (const Node& c : n.children) {
        if (Error e = encode_node(enc, c, depth + 1); e != Error::ok) return e;
      }
      return Error::ok;
  }
  return Error::binary_node;
}

// Walks a tape written by the JS side, checking every word before use.
class TapeReader {
 public:
  TapeReader(std::span<const int32_t> words, std::span<const int32_t> strings, std::span<const uint8_t> area,
             Encoder& enc)
      : w_(words), s_(strings), area_(area), enc_(enc) {}

  Error run() {
    if (Error e = node(1); e != Error::ok) return e;
    return i_ == w_.size() ? Error::ok : Error::binary_tape;
  }

 private:
  std::span<const int32_t> w_, s_;
  std::span<const uint8_t> area_;
  Encoder& enc_;
  size_t i_ = 0;

  Error word(int32_t& v) {
    if (i_ >= w_.size()) return Error::binary_tape;
    v = w_[i_++];
    return Error::ok;
  }

  Error range(int32_t off, int32_t len, std::span<const uint8_t>& out) {
    if (off < 0 || len < 0 || static_cast<size_t>(off) + static_cast<size_t>(len) > area_.size()) {
      return Error::binary_tape;
    }
    out = area_.subspan(static_cast<size_t>(off), static_cast<size_t>(len));
    return Error::ok;
  }

  // Writes the string a ref names; empty reports whether it was "".
  Error ref(bool* empty = nullptr) {
    int32_t r;
    if (Error e = word(r); e != Error::ok) return e;
    if (r >= 0) {
      if (r >= kTokenCount) return Error::binary_tape;
      if (empty) *empty = r == 0;
      if (r == 0) return enc_.string({});
      enc_.token(r);
      return Error::ok;
    }
    const size_t k = static_cast<size_t>(-1 - static_cast<int64_t>(r));
    if (k >= s_.size() / 2) return Error::binary_tape;
    std::span<const uint8_t> b;
    if (Error e = range(s_[2 * k], s_[2 * k + 1], b); e != Error::ok) return e;
    if (empty) *empty = b.empty();
    return enc_.string(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
  }

  // Counts the words of the node at i_ without writing, to learn whether it has content before
  // its header is written (the header holds 1 + 2 * attrs + content).
  Error node(size_t depth) {
    if (depth > kMaxDepth) return Error::binary_depth;
    if (i_ + 2 > w_.size()) return Error::binary_tape;
    const int32_t attrs = w_[i_ + 1];
    if (attrs < 0 || static_cast<size_t>(attrs) > (kMaxListSize - 1) / 2) return Error::binary_too_large;
    const size_t kind_at = i_ + 2 + 2 * static_cast<size_t>(attrs);
    if (kind_at >= w_.size()) return Error::binary_tape;
    const int32_t kind = w_[kind_at];
    if (kind < kContentNone || kind > kContentChildren) return Error::binary_tape;
    if (Error e = enc_.list_header(1 + 2 * static_cast<size_t>(attrs) + (kind != kContentNone)); e != Error::ok) {
      return e;
    }
    bool empty_tag = false;
    if (Error e = ref(&empty_tag); e != Error::ok) return e;
    if (empty_tag) return Error::binary_node;
    i_++;  // attrs count
    for (int32_t a = 0; a < attrs; a++) {
      if (Error e = ref(); e != Error::ok) return e;
      if (Error e = ref(); e != Error::ok) return e;
    }
    i_++;  // content kind
    switch (kind) {
      case kContentNone: return Error::ok;
      case kContentText: return ref();
      case kContentBytes: {
        int32_t off, len;
        if (Error e = word(off); e != Error::ok) return e;
        if (Error e = word(len); e != Error::ok) return e;
        std::span<const uint8_t> b;
        if (Error e = range(off, len, b); e != Error::ok) return e;
        return enc_.bytes(b.data(), b.size());
      }
      default: {
        int32_t n;
        if (Error e = word(n); e != Error::ok) return e;
        if (n < 0) return Error::binary_tape;
        if (Error e = enc_.list_header(static_cast<size_t>(n)); e != Error::ok) return e;
        for (int32_t c = 0; c < n; c++) {
          if (Error e = node(depth + 1); e != Error::ok) return e;
        }
        return Error::ok;
      }
    }
  }
};

}  // namespace

int token_id(Dict dict, std::string_view s) noexcept {
  if (!valid_dict(dict) || s.empty()) return -1;
  std::vector<uint8_t> unused;
  return Encoder(dict, unused).lookup(s);
}

std::string_view token_string(Dict dict, int id) noexcept {
  if (!valid_dict(dict) || id < 0 || id >= kTokenCount) return {};
  return table(dict).strings[id];
}

Error decode(std::span<const uint8_t> frame, Dict dict, Node& out) {
  if (!valid_dict(dict)) return Error::dictionary;
  std::vector<uint8_t> scratch;
  std::span<const uint8_t> body;
  if (Error e = frame_body(frame, scratch, body); e != Error::ok) return e;
  out = Node{};
  TreeSink sink(out);
  return Decoder<TreeSink>(body, dict, sink).run();
}

// Drops what a failed encode appended to out, zeroed first: resize alone would leave a stanza's
// strings and bytes in the vector's capacity.
void drop_from(std::vector<uint8_t>& out, size_t start) noexcept {
  if (out.size() > start) explicit_bzero(out.data() + start, out.size() - start);
  out.resize(start);
}

Error encode(const Node& node, Dict dict, std::vector<uint8_t>& out) {
  if (!valid_dict(dict)) return Error::dictionary;
  const size_t start = out.size();
  out.push_back(0);  // flag byte: not compressed
  Encoder enc(dict, out);
  const Error e = encode_node(enc, node, 1);  // depth counts nodes, the root being 1
  if (e != Error::ok) drop_from(out, start);
  return e;
}

Error decode_tape(std::span<const uint8_t> frame, Dict dict, DecodedTape& out) {
  out.clear();
  if (!valid_dict(dict)) return Error::dictionary;
  std::span<const uint8_t> body;
  if (Error e = frame_body(frame, out.inflated, body); e != Error::ok) return e;
  TapeSink sink(out);
  return Decoder<TapeSink>(body, dict, sink).run();
}

Error encode_tape(std::span<const int32_t> words, std::span<const int32_t> strings, std::span<const uint8_t> area,
                  Dict dict, std::vector<uint8_t>& out) {
  if (!valid_dict(dict)) return Error::dictionary;
  const size_t start = out.size();
  out.push_back(0);
  Encoder enc(dict, out);
  const Error e = TapeReader(words, strings, area, enc).run();
  if (e != Error::ok) drop_from(out, start);
  return e;
}

}  // namespace wacore::binary
