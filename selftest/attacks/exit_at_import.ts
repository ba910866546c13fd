/**
 * Exits with code 0 while being loaded, as if all were well. The grader must carry on and report
 * every test as crashed, with no points.
 */
export * from './base';

process.exit(0);
