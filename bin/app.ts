/** The CDK app (`npx cdk synth`, `npx cdk deploy`); settings come from CDK context, see lib/stack/settings.ts. */
import { createApp } from '../lib/stack/app';

createApp();
