import { describeCrashPoints } from "./crash.js";

describeCrashPoints("fs");
describeCrashPoints("memory");
