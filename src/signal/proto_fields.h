// Field numbers of the session record protobuf: libsignal's storage.proto (SessionStructure,
// Chain, ...) and ours beyond it for what only libsignal-node keeps (docs/signal.md).
#pragma once

#include <cstdint>

namespace wacore::signal::fields {

enum : uint32_t {
  kSessionVersion = 1,
  kRemoteIdentity = 3,
  kRootKey = 4,
  kPreviousCounter = 5,
  kSenderChain = 6,
  kReceiverChains = 7,
  kPendingPreKey = 9,
  kRemoteRegistrationId = 10,
  kAliceBaseKey = 13,
  // libsignal-node state with no libsignal field:
  kLastRemoteRatchet = 100,
  kClosed = 101,           // sint64
  kUsed = 102,             // int64
  kCreated = 103,          // int64
  kBaseKeyOurs = 104,      // bool
  kPreviousCounterNegative = 105,  // sint64, only when previous_counter < 0
};
enum : uint32_t { kChainRatchetKey = 1, kChainRatchetPrivate = 2, kChainKey = 3, kChainMessageKeys = 4 };
enum : uint32_t { kChainKeyIndex = 1, kChainKeyKey = 2 };
enum : uint32_t { kMkIndex = 1, kMkCipher = 2, kMkMac = 3, kMkIv = 4, kMkSeed = 5 };
enum : uint32_t { kPendingPreKeyId = 1, kPendingBaseKey = 2, kPendingSignedId = 3 };


}  // namespace wacore::signal::fields
