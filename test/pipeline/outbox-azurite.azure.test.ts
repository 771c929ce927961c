import { describeOutbox } from "./outbox.js";

describeOutbox("azure");
