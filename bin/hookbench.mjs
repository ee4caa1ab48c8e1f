#!/usr/bin/env node
// The `hookbench` command: runs the TypeScript sources through tsx so an install needs no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src-main/serve/cli.ts');
await main(process.argv.slice(2));
