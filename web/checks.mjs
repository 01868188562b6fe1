// A fixed, deterministic set of checks of the wacore-wasm API, shared by the Node side of the
// browser test (tests/browser/run.mjs), the test page (web/test.html) and its worker
// (web/test-worker.mjs). Uses only ECMAScript and the API object, so it runs the same in Node, a
// page and a worker. The result is JSON-serialisable: hex strings, booleans, numbers and error codes.
// Randomized round trips are done here too but are reported only as booleans, so that results from
// different environments can be compared with a plain deep-equal.

const HEX = '0123456789abcdef';

export function toHex(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += HEX[bytes[i] >> 4] + HEX[bytes[i] & 15];
  return s;
}

export function fromHex(hex) {
  if (hex.length % 2 !== 0 || /[^0-9a-f]/i.test(hex)) throw new Error(`bad hex: ${hex}`);
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Vectors used by runChecks, with the values they must produce. */
export const VECTORS = Object.freeze({
  alicePriv: 'c806439dc9d2c476ffed8f2580c0888d58ab406bf7ae3698879021b96bb4bf59',
  alicePub: '051bb75966f2e93a3691dfff942bb2a466a1c08b8d78ca3f4d6df8b8bfa2e4ee28',
  bobPub: '653614993d2b15ee9e5fd3d86ce719ef4ec1daae1886a87b3f5fa9565a27a22f',
  shared: '325f239328941ced6e673b86ba41017448e99b649a9c3806c1dd7ca4c477e629',
  signPriv: '0000000000000000bd0000000000000000000000000000000000000000000040',
  signature:
    'cf873d0379ac20e8893e5567ee0f8951f8db840d26b243b463526689d01ca718' +
    'ac189fb1678574ebdde569330659448b0bd6c1973f7d780ab39518626803d782',
});

/** Runs fn; returns the error's `code` (or a description of a non-coded error), or 'NO_ERROR'. */
function errorCode(api, fn) {
  try {
    fn();
    return 'NO_ERROR';
  } catch (e) {
    if (e instanceof api.WacoreError && typeof e.code === 'string') return e.code;
    return `NOT_A_WACORE_ERROR: ${e?.name ?? typeof e}: ${e?.message ?? String(e)}`;
  }
}

/** Runs fn; returns its value, or a string describing what it threw (so one failure does not hide the rest). */
function attempt(fn) {
  try {
    return fn();
  } catch (e) {
    return `THREW ${e?.code ?? e?.name ?? 'error'}: ${e?.message ?? String(e)}`;
  }
}

function equalBytes(a, b) {
  if (!(a instanceof Uint8Array) || !(b instanceof Uint8Array) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function randomBytes(n) {
  const out = new Uint8Array(n);
  // getRandomValues fills at most 65536 bytes per call.
  for (let i = 0; i < n; i += 65536) globalThis.crypto.getRandomValues(out.subarray(i, Math.min(n, i + 65536)));
  return out;
}

function flipped(bytes, index) {
  const copy = bytes.slice();
  copy[index] ^= 0x01;
  return copy;
}

export async function runChecks(api) {
  const v = VECTORS;
  const alicePriv = fromHex(v.alicePriv);
  const bobPub = fromHex(v.bobPub);
  const signPriv = fromHex(v.signPriv);
  const zeros200 = new Uint8Array(200);
  const zeros64 = new Uint8Array(64);

  const fixed = {};
  fixed.publicFromPrivate = attempt(() => toHex(api.getPublicFromPrivateKey(alicePriv)));
  fixed.agreement32 = attempt(() => toHex(api.calculateAgreement(bobPub, alicePriv)));
  fixed.agreement33 = attempt(() => {
    const pub33 = new Uint8Array(33);
    pub33[0] = 5;
    pub33.set(bobPub, 1);
    return toHex(api.calculateAgreement(pub33, alicePriv));
  });
  fixed.signatureWithRandom = attempt(() => toHex(api.calculateSignatureWithRandom(signPriv, zeros200, zeros64)));
  // The same inputs must give the same signature again.
  fixed.signatureWithRandomRepeatable = attempt(
    () => toHex(api.calculateSignatureWithRandom(signPriv, zeros200, zeros64)) === v.signature,
  );

  const verify = {};
  const signPub = attempt(() => api.getPublicFromPrivateKey(signPriv));
  const sig = fromHex(v.signature);
  if (signPub instanceof Uint8Array) {
    verify.valid33 = attempt(() => api.verifySignature(signPub, zeros200, sig));
    verify.valid32 = attempt(() => api.verifySignature(signPub.subarray(1), zeros200, sig));
    verify.flippedSignatureFirstByte = attempt(() => api.verifySignature(signPub, zeros200, flipped(sig, 0)));
    verify.flippedSignatureLastByte = attempt(() => api.verifySignature(signPub, zeros200, flipped(sig, 63)));
    verify.flippedMessage = attempt(() => api.verifySignature(signPub, flipped(zeros200, 100), sig));
    verify.flippedPublicKey = attempt(() => api.verifySignature(flipped(signPub, 7), zeros200, sig));
    verify.otherKey = attempt(() => api.verifySignature(fromHex(v.alicePub), zeros200, sig));
  } else {
    verify.publicKey = signPub;
  }

  const errors = {};
  errors.lowOrderZeroKey = errorCode(api, () => api.calculateAgreement(new Uint8Array(32), alicePriv));
  errors.pubKey31Bytes = errorCode(api, () => api.calculateAgreement(new Uint8Array(31).fill(9), alicePriv));
  errors.privKey31Bytes = errorCode(api, () => api.getPublicFromPrivateKey(new Uint8Array(31).fill(9)));
  errors.pubKey33WrongType = errorCode(api, () => {
    const k = new Uint8Array(33);
    k[0] = 6;
    k.set(bobPub, 1);
    return api.calculateAgreement(k, alicePriv);
  });
  errors.stringKey = errorCode(api, () => api.calculateAgreement(v.bobPub, alicePriv));
  errors.stringPrivKey = errorCode(api, () => api.getPublicFromPrivateKey(v.alicePriv));
  errors.stringMessage = errorCode(api, () => api.calculateSignature(signPriv, 'hello'));
  errors.signature63Bytes = errorCode(api, () => api.verifySignature(signPub, zeros200, new Uint8Array(63)));

  const roundTrips = {};
  roundTrips.keyPairShapes = attempt(() => {
    const { pubKey, privKey } = api.generateKeyPair();
    return (
      pubKey instanceof Uint8Array && pubKey.length === 33 && pubKey[0] === 5 &&
      privKey instanceof Uint8Array && privKey.length === 32 &&
      equalBytes(api.getPublicFromPrivateKey(privKey), pubKey)
    );
  });
  roundTrips.agreementsEqual = attempt(() => {
    const a = api.generateKeyPair();
    const b = api.generateKeyPair();
    const ab = api.calculateAgreement(b.pubKey, a.privKey);
    const ba = api.calculateAgreement(a.pubKey, b.privKey);
    return ab.length === 32 && equalBytes(ab, ba) && !equalBytes(a.privKey, b.privKey);
  });
  roundTrips.signVerify = attempt(() => {
    const { pubKey, privKey } = api.generateKeyPair();
    const msg = randomBytes(1 + (randomBytes(1)[0] % 200));
    const s = api.calculateSignature(privKey, msg);
    return s.length === 64 && api.verifySignature(pubKey, msg, s) === true &&
      api.verifySignature(pubKey, msg, flipped(s, 5)) === false;
  });
  roundTrips.signaturesRandomized = attempt(() => {
    const { privKey } = api.generateKeyPair();
    const msg = randomBytes(32);
    return !equalBytes(api.calculateSignature(privKey, msg), api.calculateSignature(privKey, msg));
  });
  roundTrips.largeMessage = attempt(() => {
    // Larger than the module's initial memory (1 MiB), so wasm memory has to grow and the loader
    // must pick up the new heap view.
    const { pubKey, privKey } = api.generateKeyPair();
    const msg = randomBytes(2 * 1024 * 1024);
    const before = api.memoryStats().wasmMemoryBytes;
    const ok = api.verifySignature(pubKey, msg, api.calculateSignature(privKey, msg)) === true &&
      api.verifySignature(pubKey, msg, api.calculateSignature(privKey, flipped(msg, 12345))) === false;
    const after = api.memoryStats().wasmMemoryBytes;
    return ok && Number.isInteger(before) && after >= before;
  });
  roundTrips.vectorsAfterGrowth = attempt(
    () =>
      toHex(api.getPublicFromPrivateKey(alicePriv)) === v.alicePub &&
      toHex(api.calculateAgreement(bobPub, alicePriv)) === v.shared &&
      toHex(api.calculateSignatureWithRandom(signPriv, zeros200, zeros64)) === v.signature,
  );
  roundTrips.registrationIds = attempt(() => {
    for (let i = 0; i < 32; i++) {
      const id = api.generateRegistrationId();
      if (!Number.isInteger(id) || id < 0 || id > 16383) return false;
    }
    return true;
  });

  return { variant: api.variant, fixed, verify, errors, roundTrips };
}
