/**
 * The stack's template, one suite per construct file of lib/stack/ (test/infra/stack/<file>.ts).
 * They run here, in one Jest test file, over one synthesis (test/infra/stack/template.ts): a test
 * file of their own each would load aws-cdk-lib and synthesize the stack again, several seconds of
 * CPU a file on a 2-core machine.
 */
import './stack/app';
import './stack/operation-functions';
import './stack/record-table';
import './stack/catalogue';
import './stack/sequencer';
import './stack/ingress-secrets';
import './stack/loader-access';
import './stack/ledger-verifier-key';
import './stack/ledger-keys';
import './stack/public-api';
import './stack/settings';
import './stack/trust-service-stack';
import './stack/operator-alarms';
import './stack/nag-acknowledgements';
