/**
 * Imported first by each entry point (the action, the CLI), before any module builds a schema:
 * zod compiles a parser for each object schema on its first parse (`new Function`), which pays
 * for itself over thousands of parses of one schema. These processes parse each schema a few
 * times (inputs, the event, the policy, one tool call each), so the compiling is pure start-up
 * cost (docs/ARCHITECTURE.md, "Start-up"). Results are the same either way.
 */
import * as z from 'zod';

z.config({ jitless: true });
