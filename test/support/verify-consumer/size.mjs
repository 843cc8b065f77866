// What a page that verifies answers it holds pays for: verifyEvidence and nothing else of the package.
import { verifyEvidence } from '@public-trust/verify';

window.verifyEvidence = verifyEvidence;
