/** This assignment's diagnosis as the harness is handed it (tests/assignment.ts loads it when a test first fails). */
export { DIAGNOSIS } from './diagnose';
