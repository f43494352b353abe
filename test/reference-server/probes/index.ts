import { ACTION_PROBES } from './orders/actions.ts';
import { ORDERS_AUTH_PROBES } from './orders/auth.ts';
import { BALANCE_PROBES } from './orders/balance.ts';
import { CONFIRM_PROBES } from './orders/confirm.ts';
import { DCA_PROBES } from './orders/dca.ts';
import { ORDERS_ERROR_PROBES } from './orders/errors.ts';
import { EXECUTION_PROBES } from './orders/executions.ts';
import { ORDERS_HOSTILE_PROBES } from './orders/hostile.ts';
import { IDEMPOTENCY_PROBES } from './orders/idempotency.ts';
import { INTENT_PROBES } from './orders/intent.ts';
import { LIMITS_PROBES } from './orders/limits.ts';
import { ONBOARDING_PROBES } from './orders/onboarding.ts';
import { READS_PROBES } from './orders/reads.ts';
import { REPORTING_PROBES } from './orders/reporting.ts';
import { ORDERS_SERVICE_PROBES } from './orders/service.ts';
import { STATE_PROBES } from './orders/state.ts';
import { TRIGGER_PROBES } from './orders/triggers.ts';
import { WITHDRAWAL_PROBES } from './orders/withdrawals.ts';
import { QUOTES_AUTH_PROBES } from './quotes/auth.ts';
import { DISCOVERY_PROBES } from './quotes/discovery.ts';
import { DISTRIBUTOR_PROBES } from './quotes/distributor.ts';
import { EDGE_PROBES } from './quotes/edge.ts';
import { ENCODING_PROBES } from './quotes/encoding.ts';
import { QUOTES_ERROR_PROBES } from './quotes/errors.ts';
import { QUOTES_HOSTILE_PROBES } from './quotes/hostile.ts';
import { PARAMETER_PROBES } from './quotes/params.ts';
import { QUOTE_PROBES } from './quotes/quote.ts';
import { RATE_PROBES } from './quotes/rate.ts';
import { ROUTE_PROBES } from './quotes/route.ts';
import type { Probe } from './probe.ts';

/**
 * The probes of the mutants, one file per mutant file of fixtures/mutants/ (the same rule areas, the same name):
 * probes/orders/withdrawals.ts holds the probes of fixtures/mutants/orders/withdrawals.ts.
 */
export const PROBE_FILES: readonly { file: string; probes: Readonly<Record<string, Probe>> }[] = [
  { file: 'orders/service.ts', probes: ORDERS_SERVICE_PROBES },
  { file: 'orders/auth.ts', probes: ORDERS_AUTH_PROBES },
  { file: 'orders/onboarding.ts', probes: ONBOARDING_PROBES },
  { file: 'orders/balance.ts', probes: BALANCE_PROBES },
  { file: 'orders/intent.ts', probes: INTENT_PROBES },
  { file: 'orders/confirm.ts', probes: CONFIRM_PROBES },
  { file: 'orders/limits.ts', probes: LIMITS_PROBES },
  { file: 'orders/reads.ts', probes: READS_PROBES },
  { file: 'orders/reporting.ts', probes: REPORTING_PROBES },
  { file: 'orders/triggers.ts', probes: TRIGGER_PROBES },
  { file: 'orders/dca.ts', probes: DCA_PROBES },
  { file: 'orders/state.ts', probes: STATE_PROBES },
  { file: 'orders/actions.ts', probes: ACTION_PROBES },
  { file: 'orders/executions.ts', probes: EXECUTION_PROBES },
  { file: 'orders/withdrawals.ts', probes: WITHDRAWAL_PROBES },
  { file: 'orders/idempotency.ts', probes: IDEMPOTENCY_PROBES },
  { file: 'orders/errors.ts', probes: ORDERS_ERROR_PROBES },
  { file: 'orders/hostile.ts', probes: ORDERS_HOSTILE_PROBES },
  { file: 'quotes/auth.ts', probes: QUOTES_AUTH_PROBES },
  { file: 'quotes/edge.ts', probes: EDGE_PROBES },
  { file: 'quotes/encoding.ts', probes: ENCODING_PROBES },
  { file: 'quotes/discovery.ts', probes: DISCOVERY_PROBES },
  { file: 'quotes/quote.ts', probes: QUOTE_PROBES },
  { file: 'quotes/route.ts', probes: ROUTE_PROBES },
  { file: 'quotes/params.ts', probes: PARAMETER_PROBES },
  { file: 'quotes/errors.ts', probes: QUOTES_ERROR_PROBES },
  { file: 'quotes/rate.ts', probes: RATE_PROBES },
  { file: 'quotes/distributor.ts', probes: DISTRIBUTOR_PROBES },
  { file: 'quotes/hostile.ts', probes: QUOTES_HOSTILE_PROBES },
];

/** Every probe, by mutant name. */
export const PROBES: Readonly<Record<string, Probe>> = Object.assign({}, ...PROBE_FILES.map((f) => f.probes));
