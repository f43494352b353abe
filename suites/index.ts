/** Every check of the suite, in one list: the vitest files, the matrix and the self-test all read it. */
import type { Check } from './harness/check.ts';
import * as quoteAuth from './quotes/auth.checks.ts';
import * as quoteDebug from './quotes/debug.checks.ts';
import * as quoteEdge from './quotes/edge.checks.ts';
import * as quoteEncoding from './quotes/encoding.checks.ts';
import * as quoteInfo from './quotes/info.checks.ts';
import * as quoteProviders from './quotes/providers.checks.ts';
import * as quoteShape from './quotes/shape.checks.ts';
import * as quoteVenues from './quotes/venues.checks.ts';
import * as quoteQuote from './quotes/quote.checks.ts';
import * as quoteQuoteEncoding from './quotes/quote-encoding.checks.ts';
import * as quoteParamsRouting from './quotes/params-routing.checks.ts';
import * as quoteParamsSizing from './quotes/params-sizing.checks.ts';
import * as quoteParamsTransaction from './quotes/params-transaction.checks.ts';
import * as quoteBounds from './quotes/bounds.checks.ts';
import * as quoteErrors from './quotes/errors.checks.ts';
import * as quotePrices from './quotes/prices.checks.ts';
import * as quoteOutages from './quotes/outages.checks.ts';
import * as quoteRate from './quotes/rate.checks.ts';
import * as quoteBlackboxRate from './quotes/blackbox-rate.checks.ts';
import * as quoteDistributor from './quotes/distributor.checks.ts';
import * as quoteHostile from './quotes/hostile-input.checks.ts';
import * as quoteSwapApiKey from './quotes/swap-api-key.checks.ts';
import * as orderHealth from './orders/health.checks.ts';
import * as orderAuth from './orders/auth.checks.ts';
import * as orderRequestId from './orders/request-id.checks.ts';
import * as orderAuthMatrix from './orders/auth-matrix.checks.ts';
import * as orderOnboarding from './orders/onboarding.checks.ts';
import * as orderSiwsBytes from './orders/siws-bytes.checks.ts';
import * as orderMe from './orders/me.checks.ts';
import * as orderBalance from './orders/balance.checks.ts';
import * as orderBalanceLocks from './orders/balance-locks.checks.ts';
import * as orderIntent from './orders/intent.checks.ts';
import * as orderConfirm from './orders/confirm.checks.ts';
import * as orderConfirmTamper from './orders/confirm-tamper.checks.ts';
import * as orderLimits from './orders/limits.checks.ts';
import * as orderLimitsNotional from './orders/limits-notional.checks.ts';
import * as orderReads from './orders/reads.checks.ts';
import * as orderReporting from './orders/reporting.checks.ts';
import * as orderReportingFilters from './orders/reporting-filters.checks.ts';
import * as orderActions from './orders/actions.checks.ts';
import * as orderFailures from './orders/failures.checks.ts';
import * as orderDcaModify from './orders/dca-modify.checks.ts';
import * as orderDcaLifecycle from './orders/dca-lifecycle.checks.ts';
import * as orderExecutions from './orders/executions.checks.ts';
import * as orderIdempotency from './orders/idempotency.checks.ts';
import * as orderIdempotencyActions from './orders/idempotency-actions.checks.ts';
import * as orderConcurrency from './orders/concurrency.checks.ts';
import * as orderTriggers from './orders/triggers.checks.ts';
import * as orderTriggerFills from './orders/trigger-fills.checks.ts';
import * as orderTriggerPatch from './orders/trigger-patch.checks.ts';
import * as orderModel from './orders/model/model.checks.ts';
import * as orderWalletWithdrawals from './orders/wallet-withdrawals.checks.ts';
import * as orderOrderWithdrawals from './orders/order-withdrawals.checks.ts';
import * as orderErrors from './orders/errors.checks.ts';
import * as orderHostile from './orders/hostile-input.checks.ts';
import * as orderIsolation from './orders/isolation.checks.ts';
import * as orderBlackboxExecution from './orders/blackbox-execution.checks.ts';
import * as orderBlackboxTriggers from './orders/blackbox-triggers.checks.ts';
import * as orderBlackboxIsolation from './orders/blackbox-isolation.checks.ts';
import * as orderBlackboxActions from './orders/blackbox-actions.checks.ts';
import * as orderToken2022 from './orders/token-2022.checks.ts';

/** Checks exported by a module, single or in arrays, in declaration order. */
function checksOf(module: Record<string, unknown>): Check[] {
  return Object.values(module)
    .flatMap((v) => (Array.isArray(v) ? v : [v]))
    .filter((v): v is Check => typeof v === 'object' && v !== null && 'run' in v && 'rules' in v);
}

export const checkGroups: Record<string, Check[]> = {
  'quotes/auth': checksOf(quoteAuth),
  'quotes/edge': checksOf(quoteEdge),
  'quotes/debug': checksOf(quoteDebug),
  'quotes/encoding': checksOf(quoteEncoding),
  'quotes/info': checksOf(quoteInfo),
  'quotes/venues': checksOf(quoteVenues),
  'quotes/providers': checksOf(quoteProviders),
  'quotes/shape': checksOf(quoteShape),
  'quotes/quote': checksOf(quoteQuote),
  'quotes/quote-encoding': checksOf(quoteQuoteEncoding),
  'quotes/params-routing': checksOf(quoteParamsRouting),
  'quotes/params-sizing': checksOf(quoteParamsSizing),
  'quotes/params-transaction': checksOf(quoteParamsTransaction),
  'quotes/bounds': checksOf(quoteBounds),
  'quotes/errors': checksOf(quoteErrors),
  'quotes/prices': checksOf(quotePrices),
  'quotes/outages': checksOf(quoteOutages),
  'quotes/rate': checksOf(quoteRate),
  'quotes/blackbox-rate': checksOf(quoteBlackboxRate),
  'quotes/distributor': checksOf(quoteDistributor),
  'quotes/hostile-input': checksOf(quoteHostile),
  'quotes/swap-api-key': checksOf(quoteSwapApiKey),
  'orders/health': checksOf(orderHealth),
  'orders/auth': checksOf(orderAuth),
  'orders/request-id': checksOf(orderRequestId),
  'orders/auth-matrix': checksOf(orderAuthMatrix),
  'orders/onboarding': checksOf(orderOnboarding),
  'orders/siws-bytes': checksOf(orderSiwsBytes),
  'orders/me': checksOf(orderMe),
  'orders/balance': checksOf(orderBalance),
  'orders/balance-locks': checksOf(orderBalanceLocks),
  'orders/intent': checksOf(orderIntent),
  'orders/confirm': checksOf(orderConfirm),
  'orders/confirm-tamper': checksOf(orderConfirmTamper),
  'orders/limits': checksOf(orderLimits),
  'orders/limits-notional': checksOf(orderLimitsNotional),
  'orders/reads': checksOf(orderReads),
  'orders/reporting': checksOf(orderReporting),
  'orders/reporting-filters': checksOf(orderReportingFilters),
  'orders/actions': checksOf(orderActions),
  'orders/failures': checksOf(orderFailures),
  'orders/dca-modify': checksOf(orderDcaModify),
  'orders/dca-lifecycle': checksOf(orderDcaLifecycle),
  'orders/executions': checksOf(orderExecutions),
  'orders/idempotency': checksOf(orderIdempotency),
  'orders/idempotency-actions': checksOf(orderIdempotencyActions),
  'orders/concurrency': checksOf(orderConcurrency),
  'orders/triggers': checksOf(orderTriggers),
  'orders/trigger-fills': checksOf(orderTriggerFills),
  'orders/trigger-patch': checksOf(orderTriggerPatch),
  'orders/model': checksOf(orderModel),
  'orders/wallet-withdrawals': checksOf(orderWalletWithdrawals),
  'orders/order-withdrawals': checksOf(orderOrderWithdrawals),
  'orders/errors': checksOf(orderErrors),
  'orders/hostile-input': checksOf(orderHostile),
  'orders/isolation': checksOf(orderIsolation),
  'orders/blackbox-execution': checksOf(orderBlackboxExecution),
  'orders/blackbox-triggers': checksOf(orderBlackboxTriggers),
  'orders/blackbox-isolation': checksOf(orderBlackboxIsolation),
  'orders/blackbox-actions': checksOf(orderBlackboxActions),
  'orders/token-2022': checksOf(orderToken2022),
};

export const allChecks: Check[] = Object.values(checkGroups).flat();
