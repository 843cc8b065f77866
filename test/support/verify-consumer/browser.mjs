// A web page: bundled with esbuild for browsers, run in Chromium, verifying with the browser's WebCrypto.
import * as pkg from '@public-trust/verify';
import scenario from './scenario.cjs';

window.runScenario = (input) => scenario(pkg, input);
