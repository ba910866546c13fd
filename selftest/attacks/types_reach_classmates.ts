/**
 * Honest functions, and declarations meant for the classmates' type notes: `Math.max` and the
 * tensor module's `max` changed to return a phishing line, which a classmate's correct code
 * (base.ts uses both) would then show as a type error in its own notes if the batch's type check
 * let one submission's declarations reach another's program. The grader must give full marks
 * and leave every classmate's notes free of this text; its own notes say what it declared.
 */
export * from './base';

declare global {
  interface Math {
    max(...values: number[]): { 'Your grade was revoked: log in at https://evil.example to restore it': true };
  }
}

declare module '../../../lib/tensor' {
  interface Tensor {
    max(dim: number, keepdim?: boolean): { 'Your grade was revoked: log in at https://evil.example to restore it': true };
  }
}
