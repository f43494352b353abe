/**
 * The Order Automation Service's checks by group (area), in order: loaded by suites/conformance.test.ts only
 * when the run selected an order check (issue 17). suites/index.ts joins both.
 */
import { checksOf } from '../harness/checks-of.ts';
import type { Check } from '../harness/check.ts';
import * as orderHealth from './health.checks.ts';
import * as orderAuth from './auth.checks.ts';
import * as orderRequestId from './request-id.checks.ts';
import * as orderAuthMatrix from './auth-matrix.checks.ts';
import * as orderOnboarding from './onboarding.checks.ts';
import * as orderSiwsBytes from './siws-bytes.checks.ts';
import * as orderMe from './me.checks.ts';
import * as orderBalance from './balance.checks.ts';
import * as orderBalanceLocks from './balance-locks.checks.ts';
import * as orderIntent from './intent.checks.ts';
import * as orderConfirm from './confirm.checks.ts';
import * as orderConfirmTamper from './confirm-tamper.checks.ts';
import * as orderLimits from './limits.checks.ts';
import * as orderLimitsNotional from './limits-notional.checks.ts';
import * as orderReads from './reads.checks.ts';
import * as orderReporting from './reporting.checks.ts';
import * as orderReportingFilters from './reporting-filters.checks.ts';
import * as orderActions from './actions.checks.ts';
import * as orderFailures from './failures.checks.ts';
import * as orderDcaModify from './dca-modify.checks.ts';
import * as orderDcaLifecycle from './dca-lifecycle.checks.ts';
import * as orderExecutions from './executions.checks.ts';
import * as orderIdempotency from './idempotency.checks.ts';
import * as orderIdempotencyActions from './idempotency-actions.checks.ts';
import * as orderConcurrency from './concurrency.checks.ts';
import * as orderTriggers from './triggers.checks.ts';
import * as orderTriggerFills from './trigger-fills.checks.ts';
import * as orderTriggerPatch from './trigger-patch.checks.ts';
import * as orderModel from './model/model.checks.ts';
import * as orderWalletWithdrawals from './wallet-withdrawals.checks.ts';
import * as orderOrderWithdrawals from './order-withdrawals.checks.ts';
import * as orderErrors from './errors.checks.ts';
import * as orderHostile from './hostile-input.checks.ts';
import * as orderIsolation from './isolation.checks.ts';
import * as orderBlackboxExecution from './blackbox-execution.checks.ts';
import * as orderBlackboxTriggers from './blackbox-triggers.checks.ts';
import * as orderBlackboxIsolation from './blackbox-isolation.checks.ts';
import * as orderBlackboxActions from './blackbox-actions.checks.ts';
import * as orderToken2022 from './token-2022.checks.ts';

export const orderGroups: Record<string, Check[]> = {
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
