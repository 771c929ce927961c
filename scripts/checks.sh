#!/bin/sh
# The type check and the format check at once (each keeps one core busy): `npm test` runs this before the suite.
npm run -s typecheck &
types=$!
npm run -s lint
lint=$?
wait "$types"
types=$?
[ "$types" = 0 ] && [ "$lint" = 0 ]
