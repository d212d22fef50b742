#!/usr/bin/env node
/** Entry point of `npm run demo`. */
import { runDemo } from './main.js';

const { result, verified } = await runDemo();
process.exitCode = result.isError || !verified ? 1 : 0;
