import { describeCrashPoints } from "./crash.js";

describeCrashPoints("azure", 3);
