import { describeOutbox } from "./outbox.js";

describeOutbox("fs");
