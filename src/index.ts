/** The action's entry point (action.yml `main: dist/index.js`). */
import './util/zod-jitless.js';
import { run } from './github/main.js';

await run();
