/**
 * The CLI's arguments for an unpaced run of `profile` without a control API, as against a partner's staging or
 * production: the counterpart of run-cli.ts's fullRunOf (which names the control API). Orders and quotes may come
 * from different servers.
 */
export const partnerRunOf = (targets: { ordersUrl: string; quotesUrl: string }, profile = 'full') => [
  '--orders-url',
  targets.ordersUrl,
  '--quotes-url',
  targets.quotesUrl,
  '--profile',
  profile,
  '--max-rps',
  '0',
];
