import fc from 'fast-check';

/** Words a lenient parser might read as a boolean (and null): each is still not one. */
export const MALFORMED_BOOLEANS: readonly string[] = ['yes', 'no', '1', '0', 'on', 'off', 'null', 'undefined', '[true]'];

/**
 * Query values that are clearly not booleans ("Booleans are true or false"). Case and whitespace variants of
 * true/false and the empty value are left out: a server may reasonably treat them otherwise, and the suite never
 * raises an alarm on a point the documents do not settle.
 */
export const notABoolean: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...MALFORMED_BOOLEANS),
  fc.stringMatching(/^[a-z0-9_.-]{1,12}$/).filter((s) => !/^(true|false)$/i.test(s)),
);
