/**
 * Starts a statement whose plan must be made for each run's values: PostgreSQL's plan for any values (the
 * generic plan it keeps after five runs) cannot drop an optional filter (`$4::text IS NULL OR lower(description)
 * LIKE $4`), so it reads a router's every job where the plan for the values at hand reads the trigram index or
 * the page's range of the index. With a kept plan the job list's text lookup read a long history whole, and
 * a synchronous call to another router waited behind all of it on the database's one thread (figures:
 * docs/performance.md, bench/job-list-isolation.bench.ts).
 *
 * In a module of its own: the service's and receiver's statements start with it on either engine, and taking it
 * from the PGlite modules would load PGlite, which only the embedded database's thread needs (a service on
 * PostgreSQL, a construct user's CLI, do without it).
 */
export const PLAN_EACH_RUN = "/* plan each run */";
