import { createRequire as __ciAgentCreateRequire } from 'node:module'; const require = __ciAgentCreateRequire(import.meta.url);
import{a,b,c,d,e,f,g}from"./chunk-QW525TNS.js";import"./chunk-RJMNWNII.js";export{a as child_process,b as crypto,c as fs,d as os,e as path,f as stream,g as util};
