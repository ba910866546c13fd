/** Calls process.exit while being loaded: every test is lost, the grader carries on. */
export * from './base';

process.exit(3);
