/** biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell commands, not templates */
import { beforeAll, describe, it } from "vitest";
import { createCommandGuard } from "../../platform/index.js";
import type { CommandGuard } from "../command-guard.js";
import { expectAllowed, expectFinding } from "../guard-test-helpers.fixture.js";
import type { CommandRule, GuardVerdictKind } from "../verdict/index.js";

let guard: CommandGuard;
beforeAll(async () => {
  guard = await createCommandGuard();
});

describe("credentials are recognised by what they are", () => {
  // Each was allowed before (only `cat ~/.ssh/id_rsa` and a few named files asked).
  it.each<[string, GuardVerdictKind, CommandRule]>([
    ["cp -r ~/.ssh .", "ask", "soft.private-key-read"],
    ["tar -cz ~/.ssh | base64", "ask", "soft.private-key-read"],
    ["zip -r k.zip ~/.gnupg", "ask", "soft.private-key-read"],
    ["rsync -a ~/.aws/ ./aws", "ask", "soft.private-key-read"],
    ["cat ~/.aws/config", "ask", "soft.private-key-read"],
    ["cat $HOME/.config/gcloud/credentials.db", "ask", "soft.private-key-read"],
    ["cp -r /home/alice/.kube k", "ask", "soft.private-key-read"],
    ["base64 ~/.docker/config.json", "ask", "soft.private-key-read"],
    ["cat ~/.npmrc", "ask", "soft.private-key-read"],
    ["cat ~/.pypirc", "ask", "soft.private-key-read"],
    ["cat ~/.vault-token", "ask", "soft.private-key-read"],
    ["cat /etc/krb5.keytab", "ask", "soft.private-key-read"],
    ["cp /etc/ssl/private/server.key .", "ask", "soft.private-key-read"],
    ["tar -czf k.tgz /etc/ssl/private", "ask", "soft.private-key-read"],
    ["wc -c < ~/.npmrc", "ask", "soft.private-key-read"],
    ["grep -r PRIVATE ~", "ask", "soft.private-key-read"],
    ["grep -R 'BEGIN OPENSSH' /home", "ask", "soft.private-key-read"],
    ["rg -l password ~", "ask", "soft.private-key-read"],
    ["tar -czf home.tgz ~", "ask", "soft.private-key-read"],
    ["cp -a /root r", "ask", "soft.private-key-read"],
    ["gpg --export-secret-keys", "ask", "soft.private-key-read"],
    ["gpg --armor --export-secret-subkeys me@x", "ask", "soft.private-key-read"],
    ["gh auth token", "ask", "soft.private-key-read"],
    ["gcloud auth print-access-token", "ask", "soft.private-key-read"],
    ["aws configure get aws_secret_access_key", "ask", "soft.private-key-read"],
    ["kubectl config view --raw", "ask", "soft.private-key-read"],
    ["printf 'host=x\\n' | git credential fill", "ask", "soft.private-key-read"],
    ["cat /etc/security/opasswd", "deny", "hard.system-secret-read"],
  ])("%j → %s (%s)", (command, verdict, rule) => expectFinding(guard, command, verdict, rule));

  it.each([
    "ls ~/.ssh",
    "cat ~/.ssh/id_rsa.pub",
    "cat ~/.ssh/known_hosts",
    "ssh-keygen -t ed25519 -f ./k",
    "cat .npmrc",
    "grep -r TODO src",
    "grep -rn foo .",
    "cat /etc/ssl/certs/ca-certificates.crt",
    "openssl x509 -in /etc/ssl/certs/ISRG_Root_X1.pem -noout",
    "gpg --export me@x",
    "gh pr list",
    "aws s3 ls",
    "kubectl config view",
    "tar -czf out.tgz dist",
  ])("leaves %j alone", (command) => expectAllowed(guard, command));
});

describe("a client aimed at a loopback or private address is flagged whatever its name", () => {
  it.each<[string, GuardVerdictKind, CommandRule]>([
    ["redis-cli -h 127.0.0.1 FLUSHALL", "ask", "soft.network-internal"],
    ["redis-cli -h127.0.0.1 FLUSHALL", "ask", "soft.network-internal"],
    ["psql -h 127.0.0.1", "ask", "soft.network-internal"],
    ["psql postgres://u@10.1.2.3/db", "ask", "soft.network-internal"],
    ['psql "host=127.0.0.1 dbname=x"', "ask", "soft.network-internal"],
    ["redis-cli -u redis://10.0.0.5:6379", "ask", "soft.network-internal"],
    ["mongosh mongodb://127.0.0.1", "ask", "soft.network-internal"],
    ["mysql --host=192.168.1.5", "ask", "soft.network-internal"],
    ["memcstat --servers=localhost", "ask", "soft.network-internal"],
    ["grpcurl -plaintext [::1]:50051 list", "ask", "soft.network-internal"],
    ["x 169.254.169.254", "ask", "soft.network-internal"],
    ["wget -e http_proxy=http://10.0.0.1:3128 http://x.example", "ask", "soft.network-internal"],
    ["ALL_PROXY=socks5://127.0.0.1:9050 curl https://x.example", "ask", "soft.network-internal"],
    ["env HTTPS_PROXY=http://172.16.0.1:8080 node fetch.js", "ask", "soft.network-internal"],
    ["ssh -R 8080:localhost:80 host", "ask", "soft.network-internal"],
    ["ssh -NR 9000:x.example:22 host", "ask", "soft.network-internal"],
    ["ssh -o RemoteForward=9000 host", "ask", "soft.network-internal"],
  ])("%j → %s (%s)", (command, verdict, rule) => expectFinding(guard, command, verdict, rule));

  it.each([
    "echo 127.0.0.1",
    "grep 10.0.0.1 /etc/hosts",
    "npm run dev -- --host 0.0.0.0",
    "node server.js --port 3000",
    "head -n 0 f",
    "pip install x==1.2.3",
    "ssh host uptime",
    "git log --oneline",
  ])("leaves %j alone", (command) => expectAllowed(guard, command));
});
