// Names Closure Compiler (emcc --closure 1, used only by the flag study: docs/build-flags.md) must
// neither rename nor report as undeclared: libsodium's random-source probe names Node's `require`
// (never reached: ENVIRONMENT=web,worker) and reads the getRandomValue option the loader passes.
/** @param {string} id */
var require = function (id) {};
var wacoreLoaderOptions = {};
/** @return {number} */
wacoreLoaderOptions.getRandomValue = function () {};
