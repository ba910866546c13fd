/** For the type checker only: the test puts a copy of the catalogue's base.ts beside each attack. */
export * from '../catalogue/bugs/base';
