/**
 * The engine manifests under infra/, checked against the engines' real object models (no cluster runs here):
 * kubernetes-models and @kubernetes-models/argo-workflows (installed apart, in test/argo-models, by
 * scripts/test-deps.sh: it declares Node ≥ 22) validate them as the API server's schemas would
 * (types, enums, required fields), their TypeScript types catch unknown fields, and the AWS SDK's input types
 * check the Batch documents. Then the facts that tie them to georefresh: the exit codes they retry or fail on come
 * from the CLI's exit-code table, shard counts agree, time zones agree, and every container's arguments are
 * accepted by the real CLI with the config they mount.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import hcl from "hcl2-parser";
import { CronJob } from "kubernetes-models/batch/v1/CronJob";
import { Job } from "kubernetes-models/batch/v1/Job";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { ServiceAccount } from "kubernetes-models/v1/ServiceAccount";
import { beforeAll, afterAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { EXIT } from "../../src/cli/exit-codes.js";
import { OUTCOME_EXIT } from "../../src/cli/exit-codes.js";
import { runCli } from "../helpers/cli.js";
import { VERSIONS, writePoints } from "../helpers/points-task.js";
import { typecheck } from "../helpers/typecheck.js";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
/** Argo's WorkflowTemplate model, from its own install (test/argo-models/package.json says why). */
const ARGO_MODEL = join(
  REPO,
  "test/argo-models/node_modules/@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/WorkflowTemplate.js",
);
if (!existsSync(ARGO_MODEL))
  throw new Error(`${ARGO_MODEL} is missing: run bash scripts/test-deps.sh (it installs Argo's object model)`);
const { WorkflowTemplate } = (await import(pathToFileURL(ARGO_MODEL).href)) as {
  WorkflowTemplate: new (doc: never) => { validate(): void };
};
const INFRA = join(REPO, "infra");
/** Codes a retry cannot fix: validation or plausibility refused it, wrong arguments, a store unusable as set up. */
const PERMANENT = [OUTCOME_EXIT.invalid, EXIT.usage, EXIT.store].sort();
/** Codes worth another attempt: store unreachable, a failed partition, superseded by a concurrent run. */
const RETRIED = [EXIT.transient, OUTCOME_EXIT.failed, OUTCOME_EXIT.superseded];

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const yamlDocs = (dir: string): { file: string; doc: Doc }[] =>
  readdirSync(join(INFRA, dir))
    .filter((f) => f.endsWith(".yaml"))
    .flatMap((f) =>
      parseAllDocuments(readFileSync(join(INFRA, dir, f), "utf8")).map((d) => {
        expect(d.errors, f).toEqual([]);
        return { file: `${dir}/${f}`, doc: d.toJS() as Doc };
      }),
    );
const json = (path: string) => JSON.parse(readFileSync(join(INFRA, path), "utf8")) as Doc;

const MODELS: Record<string, { model: new (d: Doc) => { validate(): void }; from: string; type: string }> = {
  ServiceAccount: {
    model: ServiceAccount as never,
    from: "kubernetes-models/v1/ServiceAccount",
    type: "IServiceAccount",
  },
  ConfigMap: { model: ConfigMap as never, from: "kubernetes-models/v1/ConfigMap", type: "IConfigMap" },
  CronJob: { model: CronJob as never, from: "kubernetes-models/batch/v1/CronJob", type: "ICronJob" },
  Job: { model: Job as never, from: "kubernetes-models/batch/v1/Job", type: "IJob" },
  WorkflowTemplate: {
    model: WorkflowTemplate as never,
    from: ARGO_MODEL,
    type: "IWorkflowTemplate",
  },
};

describe("infra/ manifests", () => {
  const k8s = yamlDocs("kubernetes");
  const argo = yamlDocs("argo");
  const byName = (kind: string, name: string) =>
    [...k8s, ...argo].find((d) => d.doc.kind === kind && d.doc.metadata.name === name)?.doc as Doc;
  const cron = () => byName("CronJob", "georefresh-nightly");
  const indexed = () => byName("Job", "georefresh-backfill-us-counties");
  const finalizeJob = () => byName("Job", "georefresh-finalize-us-counties");
  const template = () => byName("WorkflowTemplate", "georefresh-backfill");
  const batchDef = () => json("aws-batch/job-definition.json");
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-infra-"));
    // The config the pods mount, exactly as the ConfigMap holds it.
    for (const [file, text] of Object.entries(byName("ConfigMap", "georefresh-config").data as Record<string, string>))
      writeFileSync(join(dir, file), text);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("every Kubernetes and Argo object validates against its model, and a broken one would not", () => {
    const all = [...k8s, ...argo];
    expect(all.map((d) => d.doc.kind).sort()).toEqual([
      "ConfigMap",
      "CronJob",
      "Job",
      "Job",
      "ServiceAccount",
      "WorkflowTemplate",
    ]);
    for (const { file, doc } of all) {
      const m = MODELS[doc.kind as string];
      expect(m, `${file}: ${doc.kind}`).toBeDefined();
      expect(
        () => new (m as { model: new (d: Doc) => { validate(): void } }).model(doc).validate(),
        file,
      ).not.toThrow();
    }
    // The validators are not lenient: the same Job with a misspelt enum value, or a container without a name.
    expect(() => new Job({ ...indexed(), spec: { ...indexed().spec, completionMode: "Indexd" } }).validate()).toThrow(
      /completionMode/,
    );
    const nameless = structuredClone(template());
    delete nameless.spec.templates[1].container.name;
    expect(() => new WorkflowTemplate(nameless as never).validate()).toThrow(/name/);
  });

  it("every document type-checks against the engines' types: no unknown field, no wrong enum", () => {
    const docs = [
      ...[...k8s, ...argo].map(({ file, doc }) => ({
        name: `${file} ${doc.kind}`,
        importFrom: (MODELS[doc.kind] as { from: string }).from,
        type: (MODELS[doc.kind] as { type: string }).type,
        value: doc,
      })),
      {
        name: "aws-batch/job-definition.json",
        importFrom: "@aws-sdk/client-batch",
        type: "RegisterJobDefinitionCommandInput",
        value: batchDef(),
      },
      {
        name: "aws-batch/submit-backfill.json",
        importFrom: "@aws-sdk/client-batch",
        type: "SubmitJobCommandInput",
        value: json("aws-batch/submit-backfill.json"),
      },
      {
        name: "aws-batch/submit-finalize.json",
        importFrom: "@aws-sdk/client-batch",
        type: "SubmitJobCommandInput",
        value: json("aws-batch/submit-finalize.json"),
      },
      // The checker catches what the JSON schemas let through:
      {
        name: "unknown field",
        importFrom: "kubernetes-models/batch/v1/Job",
        type: "IJob",
        value: { ...indexed(), spec: { ...indexed().spec, backofLimitPerIndex: 3 } },
      },
      {
        name: "wrong enum",
        importFrom: "@aws-sdk/client-batch",
        type: "RegisterJobDefinitionCommandInput",
        value: { ...batchDef(), type: "containers" },
      },
    ];
    const errors = typecheck(docs, REPO);
    for (const d of docs.slice(0, -2)) expect(errors[d.name], d.name).toEqual([]);
    expect(errors["unknown field"]?.join(" ")).toMatch(/backofLimitPerIndex/);
    expect(errors["wrong enum"]?.join(" ")).toMatch(/"containers"/);
  }, 120_000);

  it("each engine fails at once on the permanent exit codes and retries the transient one", () => {
    const rules = (spec: Doc) => spec.podFailurePolicy.rules as Doc[];
    for (const [what, spec, action] of [
      ["Indexed Job", indexed().spec, "FailIndex"],
      ["CronJob", cron().spec.jobTemplate.spec, "FailJob"],
      ["finalize Job", finalizeJob().spec, "FailJob"],
    ] as const) {
      const fail = rules(spec).filter((r) => r.action === action);
      expect(
        fail.map((r) => [...r.onExitCodes.values].sort()),
        what,
      ).toEqual([PERMANENT]);
      expect(
        rules(spec).some((r) => r.action === "Ignore" && r.onPodConditions?.[0]?.type === "DisruptionTarget"),
        what,
      ).toBe(true);
      expect(spec.template.spec.restartPolicy, what).toBe("Never"); // podFailurePolicy requires it
    }
    const shard = (template().spec.templates as Doc[]).find((t) => t.name === "shard") as Doc;
    const retriedByArgo = [...(shard.retryStrategy.expression as string).matchAll(/exitCode\) == (\d+)/g)].map((m) =>
      Number(m[1]),
    );
    expect(retriedByArgo.sort()).toEqual([...RETRIED].sort());
    const onExit = batchDef().retryStrategy.evaluateOnExit as Doc[];
    expect(
      onExit
        .filter((r) => r.action === "RETRY" && r.onExitCode)
        .map((r) => Number(r.onExitCode))
        .sort(),
    ).toEqual([...RETRIED].sort());
    expect(onExit.at(-1)).toEqual({ onExitCode: "*", action: "EXIT" });
    const sbatch = readFileSync(join(INFRA, "slurm/backfill.sbatch"), "utf8");
    expect(sbatch).toMatch(/RequeueExit=75/);
    expect(readFileSync(join(REPO, "scripts/slurm.sh"), "utf8")).toMatch(
      /TRANSIENT=\$\{GEOREFRESH_TRANSIENT_EXIT:-75\}/,
    );
    expect(EXIT.transient).toBe(75);
  });

  it("shard counts, time zones and the CronJob's logical date agree across the manifests", () => {
    const env = (c: Doc, name: string) => (c.env as Doc[]).find((e) => e.name === name);
    const job = indexed();
    const container = job.spec.template.spec.containers[0];
    expect([job.spec.completionMode, job.spec.parallelism, Number(env(container, "GEOREFRESH_SHARDS")?.value)]).toEqual(
      ["Indexed", job.spec.completions, job.spec.completions],
    );
    expect(container.args).toContain("--shard=auto");
    const c = cron().spec;
    const cc = c.jobTemplate.spec.template.spec.containers[0];
    expect([
      c.concurrencyPolicy,
      cc.args.includes("--to=scheduled"),
      cc.args.includes(`--time-zone=${c.timeZone}`),
    ]).toEqual(["Forbid", true, true]);
    expect(c.startingDeadlineSeconds).toBeGreaterThan(0);
    expect(env(cc, "GEOREFRESH_JOB_NAME")?.valueFrom.fieldRef.fieldPath).toBe(
      "metadata.labels['batch.kubernetes.io/job-name']",
    );
    const submit = json("aws-batch/submit-backfill.json");
    expect(String(submit.arrayProperties.size)).toBe(submit.parameters.shards);
    expect(batchDef().containerProperties.command).toEqual(
      expect.arrayContaining(["--shard", "auto", "--shards", "Ref::shards"]),
    );
  });

  it("every container's arguments are accepted by the real CLI with the mounted config", async () => {
    const config = join(dir, "georefresh.config.json");
    const store = join(dir, "empty-store");
    const local = (args: string[]) => args.map((a) => a.replace("/config/georefresh.config.json", config));
    const argoParams = Object.fromEntries(
      (template().spec.arguments.parameters as Doc[]).map((p) => [p.name, p.value]),
    );
    const argo = (args: string[]) =>
      args.map((a) =>
        a
          .replace(/\{\{workflow\.parameters\.(\w+)\}\}/g, (_, n: string) => argoParams[n])
          .replace("{{inputs.parameters.shard}}", "0/8"),
      );
    const batch = batchDef();
    const runs: { what: string; args: string[]; env?: Record<string, string> }[] = [
      // Backfills: the plan only (--list-shards never opens the store), so the arguments, config and pins are checked.
      {
        what: "CronJob",
        args: [...local(cron().spec.jobTemplate.spec.template.spec.containers[0].args), "--list-shards", "2"],
        env: { GEOREFRESH_JOB_NAME: `georefresh-nightly-${Date.parse("2026-12-02T02:00:00Z") / 60_000}` },
      },
      { what: "Indexed Job", args: [...local(indexed().spec.template.spec.containers[0].args), "--list-shards", "8"] },
      ...(template().spec.templates as Doc[])
        .filter((t) => t.container?.args[0] === "backfill")
        .map((t) => ({
          what: `Argo ${t.name}`,
          args: [...local(argo(t.container.args)), ...(t.name === "list-shards" ? [] : ["--list-shards", "8"])],
        })),
      {
        what: "Batch",
        args: [
          ...local(
            (batch.containerProperties.command as string[]).map((a) =>
              a.replace(/^Ref::(\w+)$/, (_, n: string) => batch.parameters[n]),
            ),
          ),
          "--list-shards",
          "8",
        ],
      },
      // Finalize on an empty store: incomplete (1), which proves the arguments were accepted (2 would not).
      { what: "finalize Job", args: [...local(finalizeJob().spec.template.spec.containers[0].args), "--store", store] },
      {
        what: "Argo finalize",
        args: [
          ...local(argo((template().spec.templates as Doc[]).find((t) => t.name === "finalize")?.container.args)),
          "--store",
          store,
        ],
      },
      {
        what: "Batch finalize",
        args: [...local(json("aws-batch/submit-finalize.json").containerOverrides.command), "--store", store],
      },
    ];
    const results = await Promise.all(runs.map((r) => runCli(r.args, r.env ?? {})));
    results.forEach((r, i) => {
      const what = (runs[i] as { what: string }).what;
      const finalize = what.includes("finalize");
      expect([what, r.code], r.stderr + r.stdout).toEqual([what, finalize ? 1 : 0]);
      if (finalize) expect(r.stdout).toMatch(/^us-counties: \d+ of \d+ partitions not complete/);
    });
    // Argo's plan step prints the list withParam maps over: the fields the shard step reads.
    const plan = JSON.parse(results[2]?.stdout ?? "[]") as { shard: string }[];
    expect(plan.map((s) => s.shard)).toEqual(Array.from({ length: 8 }, (_, i) => `${i}/8`));
  }, 120_000);

  it("lifecycle files: S3's and Azure's expire the same temp prefix after the same days", () => {
    const s3 = JSON.parse(readFileSync(join(INFRA, "s3-lifecycle.json"), "utf8")) as Doc;
    const azure = JSON.parse(readFileSync(join(INFRA, "azure-lifecycle.json"), "utf8")) as Doc;
    const expire = (s3.Rules as Doc[]).find((r) => r.Expiration) as Doc;
    const rule = (azure.rules as Doc[])[0] as Doc;
    expect([rule.type, rule.enabled, rule.definition.filters.blobTypes]).toEqual(["Lifecycle", true, ["blockBlob"]]);
    expect(rule.definition.filters.prefixMatch).toEqual([`georefresh/${expire.Filter.Prefix}`]);
    expect(rule.definition.actions.baseBlob.delete.daysAfterModificationGreaterThan).toBe(expire.Expiration.Days);
  });

  it("terraform: the lifecycle rules behind gc, a bucket policy that refuses unconditional writes, a job policy", () => {
    const [tf] = hcl.parseToObject(readFileSync(join(INFRA, "terraform/main.tf"), "utf8")) as [Doc, unknown];
    expect(tf).toBeTruthy();
    const rules = tf.resource.aws_s3_bucket_lifecycle_configuration.store[0].rule as Doc[];
    expect(rules.find((r) => r.expiration)?.filter[0].prefix).toBe("${local.root}_tmp/");
    expect(
      rules.find((r) => r.abort_incomplete_multipart_upload)?.abort_incomplete_multipart_upload[0]
        .days_after_initiation,
    ).toBe(1);
    const deny = (tf.data.aws_iam_policy_document.bucket[0].statement as Doc[]).filter(
      (s) => s.effect === "Deny" && s.actions.includes("s3:PutObject"),
    );
    const keys = (s: Doc) => (s.condition as Doc[]).map((c) => `${c.test} ${c.variable}`).sort();
    expect(deny.map((s) => [s.resources[0].replace(/^.*\$\{local\.root\}/, ""), keys(s)])).toEqual([
      ["artifacts/*", ["Null s3:if-none-match"]],
      ["manifests/*", ["Null s3:if-match", "Null s3:if-none-match"]],
      ["snapshots/*", ["Null s3:if-match", "Null s3:if-none-match"]],
    ]);
    const allowed = (tf.data.aws_iam_policy_document.job[0].statement as Doc[]).flatMap((s) => s.actions as string[]);
    expect(allowed.some((a) => a.endsWith("*"))).toBe(false); // least privilege: no wildcards
    expect(allowed).toEqual(
      expect.arrayContaining([
        "s3:GetObject",
        "s3:PutObject",
        "s3:DeleteObject",
        "s3:ListBucket",
        "s3:AbortMultipartUpload",
      ]),
    );
  });

  it("the Dockerfile: multi-stage, production dependencies only, non-root, the CLI as an exec-form entrypoint", () => {
    const text = readFileSync(join(REPO, "Dockerfile"), "utf8");
    const lines = text.split("\n").filter((l) => l && !l.startsWith("#"));
    expect(lines.filter((l) => l.startsWith("FROM ")).map((l) => l.split(" ")[1])).toEqual([
      "node:20-bookworm-slim",
      "node:20-bookworm-slim",
    ]);
    expect(text).toMatch(/npm ci /);
    expect(text).toMatch(/npm prune --omit=dev/);
    expect(lines.filter((l) => l.startsWith("USER ")).at(-1)).toBe("USER 10001:10001");
    expect(lines.find((l) => l.startsWith("ENTRYPOINT"))).toBe('ENTRYPOINT ["node", "/app/dist/cli/main.js"]');
    // Every file the build copies from the context exists, and the dist path is the package's bin.
    for (const l of lines.filter((x) => x.startsWith("COPY ") && !x.includes("--from="))) {
      for (const src of l.split(/\s+/).slice(1, -1))
        expect(() => readFileSync(join(REPO, src)), src).not.toThrow(/ENOENT/);
    }
    expect(
      (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { bin: Record<string, string> }).bin.georefresh,
    ).toBe("dist/cli/main.js");
    const kubernetesImages = [...k8s, ...argo].flatMap(
      ({ doc }) => JSON.stringify(doc).match(/"image":"[^"]+"/g) ?? [],
    );
    expect(new Set(kubernetesImages).size).toBe(1); // one image everywhere
  });

  it("the Airflow DAG byte-compiles, and its tasks drive the real CLI: plan, mapped shards, finalize", async () => {
    const dag = join(INFRA, "airflow/georefresh_dag.py");
    execFileSync("python3", ["-m", "py_compile", dag], {
      env: { ...process.env, PYTHONPYCACHEPREFIX: join(dir, "pycache") },
    });
    // Airflow is not installable here (no PyPI): a stand-in for the four names the DAG imports runs its task
    // functions as plain Python, with the real georefresh behind GEOREFRESH.
    const stub = join(dir, "stub", "airflow");
    execFileSync("mkdir", ["-p", stub]);
    writeFileSync(join(stub, "__init__.py"), "");
    writeFileSync(
      join(stub, "exceptions.py"),
      "class AirflowException(Exception): pass\nclass AirflowFailException(AirflowException): pass\n",
    );
    writeFileSync(
      join(stub, "decorators.py"),
      [
        "TASKS = {}",
        "class Task:",
        "    def __init__(self, fn): self.fn = fn; TASKS[fn.__name__] = fn",
        "    def __call__(self, *a, **k): return self",
        "    def expand(self, **k): self.mapped = k; return self",
        "    def __rshift__(self, other): return other",
        "def task(fn=None, **_):",
        "    return Task(fn) if fn else (lambda f: Task(f))",
        "def dag(**kw):",
        "    def wrap(fn):",
        "        def build(): TASKS['__dag__'] = kw; fn()",
        "        return build",
        "    return wrap",
      ].join("\n"),
    );
    const bin = join(dir, "georefresh");
    writeFileSync(
      bin,
      `#!/bin/bash\nexec ${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(join(REPO, "src/cli/main.ts"))} "$@"\n`,
    );
    execFileSync("chmod", ["+x", bin]);
    // The DAG's dataset, here a small test task (4 regions, daily) so the whole DAG runs in seconds.
    const air = join(dir, "airflow");
    execFileSync("mkdir", ["-p", air]);
    const helper = pathToFileURL(fileURLToPath(new URL("../helpers/points-task.ts", import.meta.url))).href;
    writePoints(join(air, "points.json"), 16);
    writeFileSync(
      join(air, "task.mjs"),
      `import { pointsTask } from ${JSON.stringify(helper)};\nexport default pointsTask(${JSON.stringify(join(air, "points.json"))}, { regions: ["a", "b", "c", "d"] });\n`,
    );
    writeFileSync(join(air, "versions.json"), JSON.stringify(VERSIONS));
    writeFileSync(
      join(air, "config.json"),
      JSON.stringify({
        store: join(air, "store"),
        versions: "./versions.json",
        datasets: { "us-counties": { module: "./task.mjs" } },
      }),
    );
    const script = [
      "import importlib.util, json, sys",
      `spec = importlib.util.spec_from_file_location("dag", ${JSON.stringify(dag)})`,
      "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)",
      "from airflow.decorators import TASKS",
      "from airflow.exceptions import AirflowFailException",
      "ds = '2026-03-15'",
      "shards = TASKS['plan'](ds=ds)",
      "TASKS['shard'](shard=shards[0], ds=ds)",
      "try:",
      "    TASKS['finalize'](ds=ds); early = 'complete'",
      "except AirflowFailException as e: early = 'incomplete'",
      "for s in shards[1:]: TASKS['shard'](shard=s, ds=ds)",
      "TASKS['finalize'](ds=ds)",
      "print(json.dumps({'shards': shards, 'early': early, 'schedule': TASKS['__dag__']['schedule']}))",
    ].join("\n");
    const out = execFileSync("python3", ["-c", script], {
      env: {
        ...process.env,
        PYTHONPATH: join(dir, "stub"),
        GEOREFRESH: bin,
        GEOREFRESH_CONFIG: join(air, "config.json"),
      },
      encoding: "utf8",
      timeout: 110_000,
    });
    const r = JSON.parse(out.trim().split("\n").at(-1) as string) as {
      shards: string[];
      early: string;
      schedule: string;
    };
    expect(r.shards).toEqual(["0/4", "1/4", "2/4", "3/4"]);
    expect(r.early).toBe("incomplete"); // finalize after one shard of four fails without retrying (exit 1)
    expect(r.schedule).toBe("0 2 * * *");
    // Every partition of the window (ds and the two days before) ended promoted.
    const manifests = readdirSync(join(air, "store", "manifests", "us-counties"), { recursive: true }).filter((f) =>
      String(f).endsWith(".json"),
    );
    expect(manifests.map(String).sort()).toEqual(
      ["a", "b", "c", "d"].flatMap((r) =>
        ["2026-03-13", "2026-03-14", "2026-03-15"].map((d) => `region=${r}/date=${d}.json`),
      ),
    );
  }, 120_000);
});
