import { compileOptions, type OptionSpec, type OptionSpecSource } from "./option-reader.js";

/**
 * Option tables of the programs whose options the guard's checks read. The long-option lists were
 * taken from the programs' own `--help` output (GNU tar 1.34, coreutils 9.1, curl 7.88, wget 1.21,
 * rsync 3.2, git 2.39) so that prefix resolution is the program's: `--to-com` is `--to-command`
 * because no other tar option starts with `to-com`. A table lists every long option, not only the
 * dangerous ones; see option-reader.ts for the notation. `option-tables.test.ts` checks a sample of
 * abbreviations against the real binaries where they are installed.
 */
const SOURCES: Readonly<Record<string, OptionSpecSource>> = {
  tar: {
    long: `
absolute-names/P acls add-file= after-date= anchored append/r atime-preserve? auto-compress/a
backup? block-number/R blocking-factor=/b bzip2/j catenate/A check-device check-links/l
checkpoint? checkpoint-action= clamp-mtime compare compress/Z concatenate confirmation create/c
delay-directory-restore delete dereference/h diff/d directory=/C exclude= exclude-backups
exclude-caches exclude-caches-all exclude-caches-under exclude-from=/X exclude-ignore=
exclude-ignore-recursive= exclude-tag= exclude-tag-all= exclude-tag-under= exclude-vcs
exclude-vcs-ignores extract/x file=/f files-from=/T force-local format=/H full-time get group=
group-map= gunzip gzip/z hard-dereference help hole-detection= ignore-case ignore-command-error
ignore-failed-read ignore-zeros/i incremental/G index-file= info-script=/F interactive/w
keep-directory-symlink keep-newer-files keep-old-files/k label=/V level= list/t
listed-incremental=/g lzip lzma lzop mode= mtime= multi-volume/M new-volume-script= newer=/N
newer-mtime= no-acls no-anchored no-auto-compress no-check-device no-delay-directory-restore
no-ignore-case no-ignore-command-error no-null no-overwrite-dir no-quote-chars= no-recursion
no-same-owner no-same-permissions no-seek no-selinux no-unquote no-verbatim-files-from
no-wildcards no-wildcards-match-slash no-xattrs null numeric-owner occurrence? old-archive
one-file-system one-top-level? overwrite overwrite-dir owner= owner-map= pax-option= portability
posix preserve-order/s preserve-permissions/p quote-chars= quoting-style= read-full-records/B
record-size= recursion recursive-unlink remove-files restrict rmt-command= rsh-command=
same-order same-owner same-permissions seek/n selinux show-defaults show-omitted-dirs
show-snapshot-field-ranges show-stored-names show-transformed-names skip-old-files sort=
sparse/S sparse-version= starting-file=/K strip-components= suffix= tape-length=/L test-label
to-command= to-stdout/O totals? touch/m transform= uncompress ungzip unlink-first/U unquote
update/u usage use-compress-program=/I utc verbatim-files-from verbose/v verify/W version
volno-file= warning= wildcards wildcards-match-slash xattrs xattrs-exclude= xattrs-include=
xform= xz/J zstd`,
  },
  sort: {
    long: `
batch-size= buffer-size=/S check=/C compress-program= debug dictionary-order/d
field-separator=/t files0-from= general-numeric-sort/g help human-numeric-sort/h ignore-case/f
ignore-leading-blanks/b ignore-nonprinting/i key=/k merge/m month-sort/M numeric-sort/n
output=/o parallel= random-sort/R random-source= reverse/r sort= stable/s temporary-directory=/T
unique/u version version-sort/V zero-terminated/z`,
  },
  curl: {
    long: `
abstract-unix-socket= alt-svc= anyauth append/a aws-sigv4= basic cacert= capath= cert=/E
cert-status cert-type= ciphers= compressed compressed-ssh config=/K connect-timeout= connect-to=
continue-at=/C cookie=/b cookie-jar=/c create-dirs create-file-mode= crlf crlfile= curves=
data=/d data-ascii= data-binary= data-raw= data-urlencode= delegation= digest disable/q
disable-eprt disable-epsv disallow-username-in-url dns-interface= dns-ipv4-addr= dns-ipv6-addr=
dns-servers= doh-cert-status doh-insecure doh-url= dump-header=/D egd-file= engine=
etag-compare= etag-save= expect100-timeout= fail/f fail-early fail-with-body false-start form=/F
form-escape form-string= ftp-account= ftp-alternative-to-user= ftp-create-dirs ftp-method=
ftp-pasv ftp-port=/P ftp-pret ftp-skip-pasv-ip ftp-ssl-ccc ftp-ssl-ccc-mode= ftp-ssl-control
get/G globoff/g happy-eyeballs-timeout-ms= haproxy-protocol head/I header=/H help=/h hostpubmd5=
hostpubsha256= hsts= http0 http1/0 http2 http2-prior-knowledge http3 http3-only
ignore-content-length include/i insecure/k interface= ipv4/4 ipv6/6 json= junk-session-cookies/j
keepalive-time= key= key-type= krb= libcurl= limit-rate= list-only/l local-port= location/L
location-trusted login-options= mail-auth= mail-from= mail-rcpt= mail-rcpt-allowfails manual/M
max-filesize= max-redirs= max-time=/m metalink negotiate netrc/n netrc-file= netrc-optional next
no-alpn no-buffer/N no-clobber no-keepalive no-npn no-progress-meter no-sessionid noproxy= ntlm
ntlm-wb oauth2-bearer= output=/o output-dir= parallel/Z parallel-immediate parallel-max= pass=
path-as-is pinnedpubkey= post301 post302 post303 preproxy progress-bar proto= proto-default=
proto-redir= proxy/x proxy-anyauth proxy-basic proxy-cacert= proxy-capath= proxy-cert=
proxy-cert-type= proxy-ciphers= proxy-crlfile= proxy-digest proxy-header= proxy-insecure
proxy-key= proxy-key-type= proxy-negotiate proxy-ntlm proxy-pass= proxy-pinnedpubkey=
proxy-service-name= proxy-ssl-allow-beast proxy-ssl-auto-client-cert proxy-tls13-ciphers=
proxy-tlsauthtype= proxy-tlspassword= proxy-tlsuser= proxy-tlsv1 proxy-user=/U proxy1
proxytunnel/p pubkey= quote=/Q random-file= range=/r rate= raw referer=/e remote-header-name/J
remote-name/O remote-name-all remote-time/R remove-on-error request=/X request-target= resolve=
retry= retry-all-errors retry-connrefused retry-delay= retry-max-time= sasl-authzid= sasl-ir
service-name= show-error/S silent/s socks4= socks4a= socks5= socks5-basic socks5-gssapi
socks5-gssapi-nec socks5-gssapi-service= socks5-hostname= speed-limit=/Y speed-time=/y ssl
ssl-allow-beast ssl-auto-client-cert ssl-no-revoke ssl-reqd ssl-revoke-best-effort sslv2/2
sslv3/3 stderr= styled-output suppress-connect-headers tcp-fastopen tcp-nodelay telnet-option=/t
tftp-blksize= tftp-no-options time-cond=/z tls-max= tls13-ciphers= tlsauthtype= tlspassword=
tlsuser= tlsv1/1 tr-encoding trace= trace-ascii= trace-time unix-socket= upload-file=/T url=
url-query= use-ascii/B user=/u user-agent=/A verbose/v version/V write-out=/w xattr`,
  },
  wget: {
    long: `
accept=/A accept-regex= adjust-extension/E append-output=/a ask-password auth-no-challenge
background/b backup-converted/K backups= base=/B bind-address= body-data= body-file=
ca-certificate= ca-directory= certificate= certificate-type= ciphers= compression= config=
connect-timeout= content-disposition content-on-error continue/c convert-file-only
convert-links/k crl-file= cut-dirs= debug/d default-page= delete-after directory-prefix=/P
dns-timeout= domains=/D exclude-directories=/X exclude-domains= execute=/e follow-ftp
follow-tags= force-directories/x force-html/F ftp-password= ftp-user= ftps-clear-data-connection
ftps-fallback-to-ftp ftps-implicit ftps-resume-ssl header= help/h hsts-file http-password=
http-user= https-only ignore-case ignore-length ignore-tags= include-directories=/I inet4-only/4
inet6-only/6 input-file=/i keep-session-cookies level=/l limit-rate= load-cookies=
local-encoding= max-redirect method= mirror/m no-cache no-check-certificate no-clobber no-config
no-cookies no-directories no-dns-cache no-glob no-host-directories no-hsts no-http-keep-alive
no-if-modified-since no-iri no-netrc no-parent no-passive-ftp no-proxy no-remove-listing
no-use-server-timestamps no-verbose no-warc-compression no-warc-digests no-warc-keep-log
output-document=/O output-file=/o page-requisites/p password= pinnedpubkey= post-data=
post-file= prefer-family= preserve-permissions private-key= private-key-type= progress=
protocol-directories proxy-password= proxy-user= quiet/q quota=/Q random-wait read-timeout=
recursive/r referer= regex-type= reject=/R reject-regex= rejected-log= relative/L
remote-encoding= report-speed= restrict-file-names= retr-symlinks retry-connrefused
retry-on-http-error= save-cookies= save-headers secure-protocol= server-response/S show-progress
span-hosts/H spider start-pos= strict-comments timeout=/T timestamping/N tries=/t
trust-server-names unlink use-askpass= user= user-agent=/U verbose/v version/V wait=/w
waitretry= warc-cdx warc-dedup= warc-file= warc-header= warc-max-size= warc-tempdir= xattr`,
  },
  install: {
    long: `
backup? compare/C context? directory/d group=/g help mode=/m no-target-directory/T owner=/o
preserve-context preserve-timestamps/p strip/s strip-program= suffix=/S target-directory=/t
verbose/v version`,
  },
  rm: {
    long: `
dir/d force/f help interactive? no-preserve-root one-file-system preserve-root? recursive/R
verbose/v version`,
  },
  cp: {
    long: `
archive/a attributes-only backup? context? copy-contents dereference/L force/f help
interactive/i link/l no-clobber/n no-dereference/P no-preserve= no-target-directory/T
one-file-system/x parents preserve= recursive/r reflink= remove-destination sparse=
strip-trailing-slashes suffix=/S symbolic-link/s target-directory=/t update/u verbose/v version`,
  },
  mv: {
    long: `
backup? context/Z force/f help interactive/i no-clobber/n no-target-directory/T
strip-trailing-slashes suffix=/S target-directory=/t update/u verbose/v version`,
  },
  tee: {
    long: `
append/a help ignore-interrupts/i output-error? version`,
  },
  chmod: {
    long: `
changes/c help no-preserve-root preserve-root quiet recursive/R reference= silent/f verbose/v
version`,
  },
  chown: {
    long: `
changes/c dereference from= help no-dereference/h no-preserve-root preserve-root quiet
recursive/R reference= silent/f verbose/v version`,
  },
  sed: {
    long: `
debug expression=/e file= follow-symlinks help in-place? line-length= null-data/z posix quiet/n
regexp-extended/r sandbox separate/s silent unbuffered/u version`,
  },
  rsync: {
    long: `
8-bit-output acls address= append append-verify archive atimes backup backup-dir= block-size=
blocking-io bwlimit= cc checksum checksum-choice= checksum-seed= chmod= chown= compare-dest=
compress compress-choice= compress-level= compress-threads= confine-root= contimeout= copy-as=
copy-dest= copy-devices copy-dirlinks copy-links copy-unsafe-links crtimes cvs-exclude daemon
debug= del delay-updates delete delete-after delete-before delete-delay delete-during
delete-excluded delete-missing-args devices dirs drop-D dry-run early-input= exclude=
exclude-from= executability existing fake-super files-from= filter= force from0 fsync fuzzy
group groupmap= hard-links help human-readable i-r iconv= ignore-errors ignore-existing
ignore-missing-args ignore-non-existing ignore-times inc-recursive include= include-from= info=
inplace insecure-links ipv4 ipv6 itemize-changes keep-dirlinks link-dest= links list-only
log-file= log-file-format= max-alloc= max-delete= max-size= min-size= mkpath modify-window=
munge-links no-D no-OPTION no-W no-i-r no-implied-dirs no-inc-recursive no-motd no-whole-file
numeric-ids old-args old-d old-dirs omit-dir-times omit-link-times one-file-system
only-write-batch= open-noatime out-format= outbuf= owner partial partial-dir= password-file=
perms port= preallocate progress protocol= prune-empty-dirs quiet read-batch= recursive relative
remote-option= remove-source-files rsh= rsync-path= safe-links secluded-args size-only
skip-compress= sockopts= sparse specials stats stderr= stop-after= stop-at= suffix= super
temp-dir= timeout= times trust-sender update usermap= verbose version whole-file write-batch=
write-devices xattrs zc zl zt`,
  },
  "git push": {
    long: `
all atomic delete/d dry-run/n exec= follow-tags force/f force-if-includes force-with-lease?
ipv4/4 ipv6/6 mirror no-verify porcelain progress prune push-option=/o quiet/q receive-pack=
recurse-submodules repo= set-upstream/u signed? tags thin verbose/v`,
  },
  "git reset": {
    long: `
hard intent-to-add/N keep merge mixed no-refresh patch/p pathspec-file-nul pathspec-from-file=
quiet/q recurse-submodules? soft`,
  },
  "git clean": {
    long: `
dry-run/n exclude=/e force/f interactive/i quiet/q`,
  },
  "git branch": {
    long: `
abbrev? all/a color? column? contains= copy/c create-reflog delete/d edit-description force/f
format= ignore-case/i list/l merged= move/m no-contains= no-merged= points-at= quiet/q
recurse-submodules remotes/r set-upstream-to=/u show-current sort= track?/t unset-upstream
verbose/v`,
  },
  "git clone": {
    long: `
also-filter-submodules bare branch=/b bundle-uri= config=/c depth= dissociate filter= ipv4/4
ipv6/6 jobs=/j local/l mirror no-checkout/n no-hardlinks no-tags origin=/o progress quiet/q
recurse-submodules? recursive? reference= reference-if-able= reject-shallow remote-submodules
separate-git-dir= server-option= shallow-exclude= shallow-since= shallow-submodules shared/s
single-branch sparse template= upload-pack=/u verbose/v`,
  },
  "git fetch": {
    long: `
all append/a atomic auto auto-gc auto-maintenance deepen= depth= dry-run filter= force/f ipv4/4
ipv6/6 jobs=/j keep/k multiple/m negotiate-only negotiation-tip= no-tags prefetch progress
prune/p prune-tags/P quiet/q recurse-submodules? refetch refmap= server-option=/o set-upstream
shallow-exclude= shallow-since= show-forced-updates stdin tags/t unshallow update-head-ok/u
update-shallow upload-pack= verbose/v write-commit-graph write-fetch-head`,
  },
  "git pull": {
    long: `
all allow-unrelated-histories append/a autostash cleanup= commit deepen= depth= dry-run edit ff
ff-only force/f gpg-sign?/S ipv4/4 ipv6/6 jobs?/j keep/k log? negotiation-tip= progress prune/p
quiet/q rebase?/r recurse-submodules? refmap= server-option=/o set-upstream shallow-exclude=
shallow-since= show-forced-updates signoff? squash stat strategy=/s strategy-option=/X tags/t
unshallow update-shallow upload-pack= verbose/v verify verify-signatures`,
  },
  "git ls-remote": {
    long: `
exit-code get-url heads/h quiet/q refs server-option=/o sort= symref tags/t upload-pack=`,
  },
  "git checkout": {
    long: `
conflict= detach/d force/f guess ignore-other-worktrees ignore-skip-worktree-bits merge/m
orphan= ours/2 overlay overwrite-ignore patch/p pathspec-file-nul pathspec-from-file= progress
quiet/q recurse-submodules? theirs/3 track?/t`,
  },
  head: {
    long: `
bytes=/c help lines=/n quiet/q silent verbose/v version zero-terminated/z`,
  },
  tail: {
    long: `
bytes=/c follow=/f help lines=/n max-unchanged-stats= pid= quiet/q retry silent
sleep-interval=/s verbose/v version zero-terminated/z`,
  },
  wc: {
    long: `
bytes/c chars/m files0-from= help lines/l max-line-length/L version words/w`,
  },
  cut: {
    long: `
bytes=/b characters=/c complement delimiter=/d fields=/f help only-delimited/s output-delimiter=
version zero-terminated/z`,
  },
  uniq: {
    long: `
all-repeated? check-chars=/w count/c group? help ignore-case/i repeated/d skip-chars=/s
skip-fields=/f unique/u version zero-terminated/z`,
  },
  tr: {
    long: `
complement/C delete/d help squeeze-repeats/s truncate-set1/t version`,
  },
  grep: {
    long: `
after-context=/A basic-regexp/G before-context=/B binary/U binary-files= byte-offset/b color?
colour? context=/C count/c dereference-recursive/R devices=/D directories=/d exclude=
exclude-dir= exclude-from= extended-regexp/E file=/f files-with-matches/l files-without-match/L
fixed-strings/F group-separator= help ignore-case/i include= initial-tab/T invert-match/v label=
line-buffered line-number/n line-regexp/x max-count=/m no-filename/h no-group-separator
no-ignore-case no-messages/s null/Z null-data/z only-matching/o perl-regexp/P quiet/q
recursive/r regexp=/e silent text/a version/V with-filename/H word-regexp/w`,
  },
  dd: { long: "help version" },
  socat: { long: "help version" },
};

const SHORT: Readonly<Record<string, string>> = {
  tar: "b:C:f:F:g:H:I:K:L:N:T:V:X:",
  sort: "k:o:S:t:T:",
  curl: "b:c:C:d:D:e:E:F:H:K:m:o:P:Q:r:t:T:u:U:w:x:X:Y:y:z:",
  wget: "a:A:B:D:e:i:I:l:o:O:P:Q:R:t:T:U:w:X:",
  install: "g:m:o:S:t:",
  cp: "S:t:",
  mv: "S:t:",
  sed: "e:f:i::l:",
  rsync: "B:e:f:M:T:",
  "git push": "o:",
  "git clone": "b:c:j:o:u:",
  "git branch": "t:",
  "git checkout": "b:B:",
};

const COMPILED = new Map<string, OptionSpec>();
for (const [name, source] of Object.entries(SOURCES)) {
  COMPILED.set(name, compileOptions({ ...source, short: SHORT[name] ?? "", oldStyle: name === "tar" }));
}

/** The option table of a program (`tar`) or git subcommand (`git push`), if the guard has one. */
export function optionSpec(program: string): OptionSpec | undefined {
  return COMPILED.get(program);
}
