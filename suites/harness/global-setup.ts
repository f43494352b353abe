import type { TestProject } from 'vitest/node';
import type { TargetEnv } from './types.ts';

/**
 * The conformance project's global setup: the CLI prepares the target (probe, capabilities, provisioning) and
 * passes it in CONFORMANCE_TARGET; every worker reads it with inject('target').
 */
export default function setup(project: TestProject): void {
  const raw = process.env.CONFORMANCE_TARGET;
  if (!raw) throw new Error('CONFORMANCE_TARGET is not set: run the suite with `npm run conformance` (or `npm start`)');
  project.provide('target', JSON.parse(raw) as TargetEnv);
}
