/**
 * Honest functions, and a type that costs TypeScript minutes and gigabytes to check: a union of
 * every order of nine members (362,880 tuples) matched against an array literal. It must cost
 * this submission its own notes ("not checked") and no classmate anything: their notes still come,
 * and no one waits for this check beyond its own limit.
 */
export * from './base';

type Perm<T, U = T> = [T] extends [never] ? [] : T extends U ? [T, ...Perm<Exclude<U, T>>] : never;

export const everyOrder: Perm<1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9> = [9, 8, 7, 6, 5, 4, 3, 2, 1];
