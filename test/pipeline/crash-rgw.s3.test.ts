import { describeCrashPoints } from "./crash.js";

describeCrashPoints("s3", 3);
