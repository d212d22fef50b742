#!/usr/bin/env node
/** Entry point of `npm run demo`. */
import { runDemo } from './main.js';

const { result } = await runDemo();
process.exitCode = result.isError ? 1 : 0;
