import type { TestProject } from 'vitest/node';

/**
 * The conformance project's global setup: the CLI prepares the target (probe, capabilities, provisioning) and hands it
 * to vitest in-process (`provide` of bin/conformance.ts), never in an environment variable that child processes
 * inherit; every worker reads it with inject('target'). Run any other way, the project says how to run it.
 */
export default function setup(project: TestProject): void {
  if (!project.getProvidedContext().target) {
    throw new Error('no target was provided: run the suite with `npm run conformance` (or `npm start`)');
  }
}
