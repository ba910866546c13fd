/** For the type checker only: materialize() puts a copy of the catalogue's base.ts here. */
export * from '../../catalogue/bugs/base';
