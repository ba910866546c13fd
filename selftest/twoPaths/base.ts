/** For the type checker only: the self-test puts a copy of the catalogue's base.ts here. */
export * from '../catalogue/bugs/base';
