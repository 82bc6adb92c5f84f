/** The two databases Cairn runs on. */
export type Dialect = 'sqlite' | 'postgres';
