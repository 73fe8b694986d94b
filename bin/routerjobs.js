#!/usr/bin/env node
// The bundled CLI (scripts/bundle-cli.mjs): one file to load instead of ~250, for a fast start.
import "../dist/bundle/main.js";
