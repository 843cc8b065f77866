/**
 * The one table of channels through which the service is reached, as the specification states
 * them. ACTIVE: served now. READY: the contract is published and the channel can be enabled
 * without a contract change; nothing is delivered through it yet.
 */
export const CHANNEL_READINESS = ['ACTIVE', 'READY'] as const;
export type ChannelReadiness = (typeof CHANNEL_READINESS)[number];

export interface ChannelEntry {
  key: string;
  readiness: ChannelReadiness;
  description: string;
}

export const CHANNELS = [
  { key: 'WEB_DESKTOP', readiness: 'ACTIVE', description: 'Desktop browsers: /verify and /trust-receipt/{reference}.' },
  { key: 'WEB_MOBILE', readiness: 'ACTIVE', description: 'Mobile browsers: the same pages, laid out for small screens.' },
  { key: 'TABLET', readiness: 'READY', description: 'Tablet layouts of the operating surface.' },
  { key: 'QR_SCAN', readiness: 'ACTIVE', description: 'A printed or displayed reference opens its trust receipt.' },
  { key: 'PWA', readiness: 'READY', description: 'Installable web application with cached catalogues.' },
  { key: 'WALLET', readiness: 'READY', description: 'Wallet presentation of credentials; live wallet transport is gated.' },
  { key: 'REST_API', readiness: 'ACTIVE', description: 'The read-only JSON API described by /developers/openapi.json.' },
  { key: 'WEBHOOK', readiness: 'READY', description: 'Signed lifecycle events described by /developers/asyncapi.json; none are delivered yet.' },
  { key: 'IOT_EVENT', readiness: 'READY', description: 'Device-originated lifecycle events; source ingress is externally gated.' },
  {
    key: 'OFFLINE_VERIFY',
    readiness: 'READY',
    description: 'Verification against previously obtained evidence; results never claim live lifecycle freshness.',
  },
  { key: 'LOW_BANDWIDTH_SYNC', readiness: 'READY', description: 'Compact synchronisation of catalogues and evidence for constrained links.' },
] as const satisfies readonly ChannelEntry[];

export type ChannelKey = (typeof CHANNELS)[number]['key'];

/** The rule every offline verification result obeys (catalogue, sandbox and pages repeat it verbatim). */
export const OFFLINE_VERIFICATION_STATEMENT =
  'Offline verification results never claim live lifecycle freshness: they confirm integrity of previously obtained evidence only, and report lifecycle state as of that evidence.';
