import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';
import { LEDGER_LOG } from '../../functions/contract/site-paths';
import { isValidKeyName } from '#verify/checks/note';
import { asLedgerKeyCount, asRetiredLogs } from './ledger-keys';
import { tableCapacityFrom, type TableCapacity } from './table-capacity';

/** The route classes with method throttles of their own (lib/stack/route-classes.ts). */
export const THROTTLE_CLASSES = ['read', 'sandbox', 'receiver'] as const;
export type ThrottleClass = (typeof THROTTLE_CLASSES)[number];

/** Everything a deployment may choose through CDK context (`cdk deploy -c key=value` or cdk.json). */
export interface StackSettings {
  /** DynamoDB deletion protection; on unless a development stack turns it off. */
  deletionProtection: boolean;
  /**
   * Public ledger verifier keys given to the functions that read records (passed through as
   * written; a JSON value in cdk.json is passed as its JSON text). Empty means no key is
   * trusted, so ledger integrity fails closed (never confirmed).
   */
  ledgerVerifierKeys: string;
  /** The Powertools Logger's level in every function (POWERTOOLS_LOG_LEVEL). */
  logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /**
   * The share of invocations, 0 to 1, that log at DEBUG whatever the level (Powertools debug log
   * sampling, POWERTOOLS_LOGGER_SAMPLE_RATE); 0 turns sampling off.
   */
  logSampleRate: number;
  /**
   * The stage's default throttle (requests per second, and burst): the safety net for every method
   * without a route class of its own (CORS preflights, methods a path does not declare, unknown paths).
   */
  throttleRateLimit: number;
  throttleBurstLimit: number;
  /**
   * Method throttles of the route classes (lib/stack/route-classes.ts): every method of a class
   * gets a token bucket of this rate and burst of its own (API Gateway applies stage throttles per
   * method), so a flood on one route takes nothing from another (docs/deploy.md#capacity-per-route).
   */
  routeThrottles: Record<ThrottleClass, { rateLimit: number; burstLimit: number }>;
  /**
   * Concurrent executions reserved for each receiver (0: none): a read flood can never take the
   * account's concurrency from the write path. Lambda keeps 100 executions of the account unreserved.
   */
  receiverReservedConcurrency: number;
  /** A CloudFront distribution in front of the API and the tile log (docs/deploy.md#the-edge); false: the API alone. */
  edge: boolean;
  /**
   * Host names the distribution answers on (custom domains), each with a DNS-validated certificate
   * and alias records in the hosted zone below. One given: it serves both origins.
   */
  verificationDomain: string;
  generalDomain: string;
  /** The Route 53 hosted zone of the custom domains, by id and name (no look-up: synth stays offline). */
  hostedZoneId: string;
  hostedZoneName: string;
  /** Requests one client (IP address) may make in a minute before the edge's web ACL answers 429; null: no web ACL. */
  wafRateLimit: number | null;
  /**
   * Whether the API stage writes its access log (one JSON line a request, docs/deploy.md#logs).
   * Behind the edge CloudFront's standard logs record every request, hit or miss, in the access log
   * bucket, so the API's own line would be a second record of what misses the cache, and most of
   * what an origin read costs in logs: off there unless asked for; on without the edge.
   */
  apiAccessLog: boolean;
  /** API Gateway stage name (the first path segment of the invoke URL). */
  stageName: string;
  /**
   * Whether this stack sets the account's API Gateway CloudWatch role (needed once per account
   * and region for access and execution logs). Turn it off where the account already has one.
   */
  apiGatewayCloudWatchRole: boolean;
  /** Days that function, access and execution logs are kept (one of CloudWatch's retention values). */
  logRetentionDays: RetentionDays;
  /** Absolute base URL of a custom domain, when the API is served under one. */
  publicBaseUrl: string;
  /**
   * The contract's verification origin (https URL of the custom domain serving the trust and
   * verification reads and pages), named in the published OpenAPI contract and catalogue. Empty:
   * publicBaseUrl if set, else the deployed API's own URL.
   */
  verificationOrigin: string;
  /** The contract's general origin (developer documents, sandbox, studio); empty as for verificationOrigin. */
  generalOrigin: string;
  /**
   * The ledger's origin: the first line of every checkpoint and the name of its signing key, fixed
   * for the life of the log (docs/ledger.md#the-origin-line). Empty in context: derived from
   * verificationOrigin, else publicBaseUrl (`https://trust.example.com` gives
   * `trust.example.com/ledger`, where the tile log is served); with neither, empty, and the
   * sequencer refuses to sign until a deployment sets it.
   */
  ledgerOrigin: string;
  /** How many keys the ledger has had (`-c ledgerKeys=2` after the first key change): the newest signs (lib/stack/ledger-keys.ts). */
  ledgerKeys: number;
  /** The logs key changes ended, `<origin>=<final tree size>` comma-separated: the read functions' LEDGER_RETIRED_LOGS. */
  ledgerRetiredLogs: string;
  /** The commit being deployed (`-c releaseCommit=$(git rev-parse HEAD)`), reported by GET /health. */
  releaseCommit: string;
  /**
   * Identity and wallet-protocol settings (`-c activationSettings='{"OIDC_ISSUER_URL":"https://..."}'`),
   * given only to the functions whose operation declares the name (activation readiness, studio).
   * Values are URLs, client ids and ARNs, never secrets; readiness reports presence, never values.
   */
  activationSettings: Record<string, string>;
  /**
   * An existing SNS topic (in the stack's region) the alarms notify. Empty: the stack
   * creates its own topic (output AlarmTopicArn), subscribed to alarmEmail when that is set.
   */
  alarmTopicArn: string;
  /** An email address the stack's own alarm topic is subscribed to (not with alarmTopicArn). */
  alarmEmail: string;
  /**
   * Create the record table from a DynamoDB import (`-c importFrom=s3://bucket/prefix/`): the
   * gzip-compressed DynamoDB JSON files `npm run load -- FILE --export DIR` wrote (DIR/data),
   * uploaded under that prefix. Null: an empty table. The table is made from the import when it
   * is created, so setting, changing or removing it on a deployed stack replaces the table
   * (docs/deploy.md#loading-records).
   */
  importFrom: { bucket: string; keyPrefix: string } | null;
  /**
   * The one principal (IAM role or user ARN) the loader role trusts; empty: the account's
   * principals whose own IAM policies allow sts:AssumeRole on it (docs/deploy.md#the-loader-role).
   */
  loaderPrincipalArn: string;
  /** Whether assuming the loader role needs MFA (aws:MultiFactorAuthPresent); off for a pipeline's role. */
  loaderMfa: boolean;
  /** How the record table's reads and writes are paid for (docs/deploy.md#the-tables-capacity). */
  tableCapacity: TableCapacity;
  /**
   * Part writers one sequencer batch may be planned in at most (docs/ingress.md#one-log-many-writers):
   * a batch of many events is cut by reference into parts planned and written beside each other,
   * so one log takes more than one process's worth of events. 0 or 1: no part writer.
   */
  sequencerParts: number;
}

export const DEFAULT_SETTINGS: StackSettings = {
  deletionProtection: true,
  ledgerVerifierKeys: '',
  logLevel: 'INFO',
  // One invocation in a hundred writes its whole story (docs/deploy.md#logs); 0 turns sampling off.
  logSampleRate: 0.01,
  throttleRateLimit: 100,
  throttleBurstLimit: 200,
  routeThrottles: {
    read: { rateLimit: 500, burstLimit: 1000 },
    sandbox: { rateLimit: 20, burstLimit: 40 },
    receiver: { rateLimit: 100, burstLimit: 200 },
  },
  receiverReservedConcurrency: 10,
  edge: true,
  verificationDomain: '',
  generalDomain: '',
  hostedZoneId: '',
  hostedZoneName: '',
  wafRateLimit: null,
  // The default follows `edge` (settingsFrom): off behind the distribution, on without it.
  apiAccessLog: false,
  stageName: 'live',
  apiGatewayCloudWatchRole: true,
  logRetentionDays: RetentionDays.ONE_MONTH,
  publicBaseUrl: '',
  verificationOrigin: '',
  generalOrigin: '',
  ledgerOrigin: '',
  ledgerKeys: 1,
  ledgerRetiredLogs: '',
  releaseCommit: '',
  activationSettings: {},
  alarmTopicArn: '',
  alarmEmail: '',
  importFrom: null,
  loaderPrincipalArn: '',
  loaderMfa: true,
  tableCapacity: { mode: 'on-demand' },
  // Sixteen parts of 500 events: a batch of up to 8,000, about 10,000 events a second into one log (docs/capacity.md#one-log-many-writers).
  sequencerParts: 16,
};

const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;

/** Context values arrive as strings from the command line and as JSON values from cdk.json. */
function asBoolean(key: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new Error(`context '${key}' must be true or false, not ${JSON.stringify(value)}`);
}

function asPositiveInteger(key: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`context '${key}' must be a positive integer, not ${JSON.stringify(value)}`);
  return n;
}

function asRate(key: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || n > 1) throw new Error(`context '${key}' must be a number from 0 to 1, not ${JSON.stringify(value)}`);
  return n;
}

function asString(key: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string') throw new Error(`context '${key}' must be a string, not ${JSON.stringify(value)}`);
  return value;
}

function asRetention(value: unknown, fallback: RetentionDays): RetentionDays {
  if (value === undefined) return fallback;
  const days = Number(value);
  const allowed = Object.values(RetentionDays).filter((v): v is number => typeof v === 'number' && v !== RetentionDays.INFINITE);
  if (!allowed.includes(days)) throw new Error(`context 'logRetentionDays' must be one of ${allowed.join(', ')}`);
  return days as RetentionDays;
}

function asVerifierKeys(value: unknown): string {
  if (value === undefined || value === null) return DEFAULT_SETTINGS.ledgerVerifierKeys;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function asSettingsMap(value: unknown): Record<string, string> {
  if (value === undefined || value === null || value === '') return {};
  const parsed = typeof value === 'string' ? JSON.parse(value) : value;
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`context 'activationSettings' must be a JSON object of names to strings`);
  for (const [name, v] of Object.entries(parsed)) {
    if (!/^[A-Z][A-Z0-9_]*$/.test(name) || typeof v !== 'string') throw new Error(`context 'activationSettings': '${name}' must be an UPPER_SNAKE name with a string value`);
  }
  return parsed as Record<string, string>;
}

/** An https origin (optionally with a base path), without a trailing slash, query or fragment. */
function asHttpsUrl(key: string, value: unknown): string {
  const url = asString(key, value, '');
  if (url && !/^https:\/\/[A-Za-z0-9.-]+(:\d+)?(\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*)?$/.test(url)) throw new Error(`context '${key}' must be an https URL without query or fragment`);
  return url.replace(/\/+$/, '');
}

/** An SNS topic's ARN. */
function asTopicArn(value: unknown): string {
  const arn = asString('alarmTopicArn', value, DEFAULT_SETTINGS.alarmTopicArn);
  if (arn && !/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/.test(arn)) {
    throw new Error(`context 'alarmTopicArn' must be the ARN of an SNS topic (arn:aws:sns:<region>:<account>:<name>), not ${JSON.stringify(arn)}`);
  }
  return arn;
}

/** One email address, as SNS takes it for an email subscription. */
function asEmail(value: unknown): string {
  const email = asString('alarmEmail', value, DEFAULT_SETTINGS.alarmEmail).trim();
  if (email && !/^[^\s@,;]+@[^\s@,;]+\.[^\s@,;]+$/.test(email)) throw new Error(`context 'alarmEmail' must be one email address, not ${JSON.stringify(email)}`);
  return email;
}

/**
 * The log's origin: as given, else the served prefix of the tile log without its scheme and
 * trailing slash (what C2SP tlog-tiles asks of an origin line) on the first configured https base.
 */
function asLedgerOrigin(value: unknown, base: string): string {
  const given = asString('ledgerOrigin', value, '');
  const origin = given || (base ? `${base.replace(/^https:\/\//, '')}${LEDGER_LOG.path.replace(/\/$/, '')}` : '');
  if (origin && (!isValidKeyName(origin) || origin.includes('://'))) {
    throw new Error(`context 'ledgerOrigin' must be a log origin without scheme, spaces or '+' (e.g. trust.example.com/ledger), not ${JSON.stringify(origin)}`);
  }
  return origin;
}

/** An IAM role or user ARN (a principal a trust policy can name). */
function asPrincipalArn(value: unknown): string {
  const arn = asString('loaderPrincipalArn', value, '').trim();
  if (arn && !/^arn:aws[a-z-]*:iam::\d{12}:(role|user)\/[\w+=,.@/-]+$/.test(arn)) {
    throw new Error(`context 'loaderPrincipalArn' must be the ARN of an IAM role or user (arn:aws:iam::<account>:role/<name>), not ${JSON.stringify(arn)}`);
  }
  return arn;
}

/** `s3://bucket/prefix/` (the prefix ends with '/' so that it names a folder, not every key that starts alike). */
function asImportSource(value: unknown): StackSettings['importFrom'] {
  const text = asString('importFrom', value, '');
  if (!text) return null;
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(text);
  if (!match) throw new Error(`context 'importFrom' must be s3://<bucket>/<prefix>/ (where the export's data folder was uploaded), not ${JSON.stringify(text)}`);
  const prefix = match[2] ?? '';
  return { bucket: match[1], keyPrefix: prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/` };
}

function asNonNegativeInteger(key: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value === '' || !Number.isInteger(n) || n < 0) throw new Error(`context '${key}' must be a whole number (0 or more), not ${JSON.stringify(value)}`);
  return n;
}

/** A DNS host name as a custom domain is written (lower case, no scheme, no trailing dot). */
function asHostName(key: string, value: unknown): string {
  const host = asString(key, value, '').trim().toLowerCase();
  if (host && !/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/.test(host)) {
    throw new Error(`context '${key}' must be a host name such as verify.example.org (no scheme, path or port), not ${JSON.stringify(host)}`);
  }
  return host;
}

/** WAF's rate-based rules count from 10 requests per window (AWS WAF developer guide, rate-based rule statement). */
export const WAF_MINIMUM_RATE_LIMIT = 10;

/**
 * The custom domains and their hosted zone: both or neither of the zone's id and name; every
 * domain inside the zone; an origin given beside a domain must be that domain's https URL.
 */
function domainSettings(node: Node, edge: boolean, verificationOriginGiven: string, generalOriginGiven: string) {
  const verificationDomain = asHostName('verificationDomain', node.tryGetContext('verificationDomain'));
  const generalDomain = asHostName('generalDomain', node.tryGetContext('generalDomain'));
  const hostedZoneId = asString('hostedZoneId', node.tryGetContext('hostedZoneId'), '').trim();
  const hostedZoneName = asString('hostedZoneName', node.tryGetContext('hostedZoneName'), '').trim().toLowerCase().replace(/\.$/, '');
  const domains = [verificationDomain, generalDomain].filter(Boolean);
  if (domains.length === 0) {
    if (hostedZoneId || hostedZoneName) throw new Error(`context 'hostedZoneId' and 'hostedZoneName' go with 'verificationDomain' or 'generalDomain'`);
    return { verificationDomain, generalDomain, hostedZoneId, hostedZoneName, verificationOrigin: verificationOriginGiven, generalOrigin: generalOriginGiven };
  }
  if (!edge) throw new Error(`context 'verificationDomain' and 'generalDomain' are attached to the edge's distribution: not with edge=false (front the API with your own domain and set verificationOrigin/generalOrigin)`);
  if (!hostedZoneId || !hostedZoneName) throw new Error(`context 'verificationDomain'/'generalDomain' need 'hostedZoneId' and 'hostedZoneName' (the Route 53 zone that validates the certificate and holds the alias records)`);
  if (!/^Z[A-Z0-9]{1,32}$/.test(hostedZoneId)) throw new Error(`context 'hostedZoneId' must be a Route 53 hosted zone id (Z...), not ${JSON.stringify(hostedZoneId)}`);
  for (const [key, domain] of [['verificationDomain', verificationDomain], ['generalDomain', generalDomain]] as const) {
    if (domain && domain !== hostedZoneName && !domain.endsWith(`.${hostedZoneName}`)) throw new Error(`context '${key}' (${domain}) is not in the hosted zone ${hostedZoneName}`);
  }
  // One domain given serves both origins.
  const originOf = (key: string, given: string, domain: string) => {
    const url = `https://${domain || domains[0]}`;
    if (given && given !== url) throw new Error(`context '${key}' (${given}) contradicts the domain the distribution answers on (${url}): give one of them`);
    return url;
  };
  return {
    verificationDomain,
    generalDomain,
    hostedZoneId,
    hostedZoneName,
    verificationOrigin: originOf('verificationOrigin', verificationOriginGiven, verificationDomain),
    generalOrigin: originOf('generalOrigin', generalOriginGiven, generalDomain),
  };
}

function asWafRateLimit(value: unknown, edge: boolean): number | null {
  if (value === undefined || value === '' || value === null) return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < WAF_MINIMUM_RATE_LIMIT || n > 2_000_000_000) {
    throw new Error(`context 'wafRateLimit' must be a whole number of requests per client and minute from ${WAF_MINIMUM_RATE_LIMIT}, not ${JSON.stringify(value)}`);
  }
  if (!edge) throw new Error(`context 'wafRateLimit' is a web ACL on the edge's distribution: not with edge=false`);
  return n;
}

/** The method throttles of each route class: `-c readRateLimit=500 -c readBurstLimit=1000`, and so on. */
function routeThrottlesFrom(node: Node): StackSettings['routeThrottles'] {
  const out = {} as StackSettings['routeThrottles'];
  for (const name of THROTTLE_CLASSES) {
    const fallback = DEFAULT_SETTINGS.routeThrottles[name];
    out[name] = {
      rateLimit: asPositiveInteger(`${name}RateLimit`, node.tryGetContext(`${name}RateLimit`), fallback.rateLimit),
      burstLimit: asPositiveInteger(`${name}BurstLimit`, node.tryGetContext(`${name}BurstLimit`), fallback.burstLimit),
    };
  }
  return out;
}

/** Reads and checks the settings; a wrong value stops the synth with the key named. */
export function settingsFrom(node: Node): StackSettings {
  const get = (key: keyof StackSettings) => node.tryGetContext(key);
  const logLevel = asString('logLevel', get('logLevel'), DEFAULT_SETTINGS.logLevel).toUpperCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) throw new Error(`context 'logLevel' must be one of ${LOG_LEVELS.join(', ')}`);
  const stageName = asString('stageName', get('stageName'), DEFAULT_SETTINGS.stageName);
  if (!/^[A-Za-z0-9_]{1,64}$/.test(stageName)) throw new Error(`context 'stageName' must be 1-64 letters, digits or underscores`);
  const publicBaseUrl = asString('publicBaseUrl', get('publicBaseUrl'), DEFAULT_SETTINGS.publicBaseUrl);
  if (publicBaseUrl && !/^https:\/\/[^\s/]+(\/[^\s]*)?$/.test(publicBaseUrl)) throw new Error(`context 'publicBaseUrl' must be an https URL`);
  const edge = asBoolean('edge', node.tryGetContext('edge'), DEFAULT_SETTINGS.edge);
  const domains = domainSettings(node, edge, asHttpsUrl('verificationOrigin', get('verificationOrigin')), asHttpsUrl('generalOrigin', get('generalOrigin')));
  const verificationOrigin = domains.verificationOrigin;
  const releaseCommit = asString('releaseCommit', get('releaseCommit'), DEFAULT_SETTINGS.releaseCommit);
  if (releaseCommit && !/^[0-9a-f]{7,64}$/.test(releaseCommit)) throw new Error(`context 'releaseCommit' must be a commit id (hex)`);
  const alarmTopicArn = asTopicArn(get('alarmTopicArn'));
  const alarmEmail = asEmail(get('alarmEmail'));
  if (alarmTopicArn && alarmEmail) {
    throw new Error(`context 'alarmEmail' subscribes the topic the stack creates; with 'alarmTopicArn' the alarms notify that topic: subscribe the address there`);
  }
  const ledgerOrigin = asLedgerOrigin(get('ledgerOrigin'), verificationOrigin || publicBaseUrl.replace(/\/+$/, ''));
  const ledgerKeys = asLedgerKeyCount(get('ledgerKeys'));
  return {
    alarmTopicArn,
    alarmEmail,
    releaseCommit,
    activationSettings: asSettingsMap(get('activationSettings')),
    deletionProtection: asBoolean('deletionProtection', get('deletionProtection'), DEFAULT_SETTINGS.deletionProtection),
    ledgerVerifierKeys: asVerifierKeys(get('ledgerVerifierKeys')),
    logLevel: logLevel as StackSettings['logLevel'],
    logSampleRate: asRate('logSampleRate', get('logSampleRate'), DEFAULT_SETTINGS.logSampleRate),
    throttleRateLimit: asPositiveInteger('throttleRateLimit', get('throttleRateLimit'), DEFAULT_SETTINGS.throttleRateLimit),
    throttleBurstLimit: asPositiveInteger('throttleBurstLimit', get('throttleBurstLimit'), DEFAULT_SETTINGS.throttleBurstLimit),
    routeThrottles: routeThrottlesFrom(node),
    receiverReservedConcurrency: asNonNegativeInteger('receiverReservedConcurrency', get('receiverReservedConcurrency'), DEFAULT_SETTINGS.receiverReservedConcurrency),
    edge,
    verificationDomain: domains.verificationDomain,
    generalDomain: domains.generalDomain,
    hostedZoneId: domains.hostedZoneId,
    hostedZoneName: domains.hostedZoneName,
    wafRateLimit: asWafRateLimit(node.tryGetContext('wafRateLimit'), edge),
    apiAccessLog: asBoolean('apiAccessLog', get('apiAccessLog'), !edge),
    stageName,
    apiGatewayCloudWatchRole: asBoolean('apiGatewayCloudWatchRole', get('apiGatewayCloudWatchRole'), DEFAULT_SETTINGS.apiGatewayCloudWatchRole),
    logRetentionDays: asRetention(get('logRetentionDays'), DEFAULT_SETTINGS.logRetentionDays),
    publicBaseUrl: publicBaseUrl.replace(/\/+$/, ''),
    verificationOrigin,
    ledgerOrigin,
    ledgerKeys,
    ledgerRetiredLogs: asRetiredLogs(get('ledgerRetiredLogs'), ledgerOrigin, ledgerKeys),
    generalOrigin: domains.generalOrigin,
    importFrom: asImportSource(get('importFrom')),
    loaderPrincipalArn: asPrincipalArn(get('loaderPrincipalArn')),
    loaderMfa: asBoolean('loaderMfa', get('loaderMfa'), DEFAULT_SETTINGS.loaderMfa),
    tableCapacity: tableCapacityFrom(node),
    sequencerParts: asSequencerParts(get('sequencerParts')),
  };
}

/** Part writers a batch may use: a whole number up to 20 (a stream batch holds 10,000 events at most, a part 500). */
function asSequencerParts(value: unknown): number {
  const n = asNonNegativeInteger('sequencerParts', value, DEFAULT_SETTINGS.sequencerParts);
  if (n > 20) throw new Error(`context 'sequencerParts' must be a whole number from 0 to 20 (a stream batch holds 10,000 events at most, a part 500), not ${JSON.stringify(value)}`);
  return n;
}
