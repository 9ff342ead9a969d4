{{/* Labels on every object: the generated manifests' plus Helm's own. */}}
{{- define "kube-queue.labels" -}}
app.kubernetes.io/name: kube-queue-controller
app.kubernetes.io/part-of: kube-queue
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "kube-queue.selectorLabels" -}}
app.kubernetes.io/name: kube-queue-controller
app.kubernetes.io/part-of: kube-queue
{{- end -}}

{{/* The job kinds switched off, as kube-queue.disabled-kinds wants them: comma-separated kind names. */}}
{{- define "kube-queue.disabledKinds" -}}
{{- $off := list -}}
{{- range $kind, $on := .Values.jobKinds -}}
{{- if not $on -}}{{- $off = append $off $kind -}}{{- end -}}
{{- end -}}
{{- join "," (sortAlpha $off) -}}
{{- end -}}

{{/* The controller's image: by digest when one is given, else by tag (default: the chart's appVersion). */}}
{{- define "kube-queue.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}
{{- end -}}

{{/* cert-manager's Certificate for the HTTPS port, its Secret, and where the Secret is mounted. */}}
{{- define "kube-queue.certificate" -}}kube-queue-serving{{- end -}}
{{- define "kube-queue.certificateSecret" -}}kube-queue-serving-cert{{- end -}}
{{- define "kube-queue.certificatePath" -}}/etc/kube-queue/serving-cert{{- end -}}

{{/* Whether kube-queue makes its own certificate and writes its CA into the APIService and the webhook configuration. */}}
{{- define "kube-queue.selfSigned" -}}
{{- if and .Values.serving.enabled (not .Values.serving.certManager.enabled) -}}true{{- end -}}
{{- end -}}

{{/* The annotation through which cert-manager's CA injector writes the caBundle, with cert-manager only. */}}
{{- define "kube-queue.injectCa" -}}
{{- if .Values.serving.certManager.enabled -}}
annotations:
  cert-manager.io/inject-ca-from: {{ printf "%s/%s" .Release.Namespace (include "kube-queue.certificate" .) | quote }}
{{- end -}}
{{- end -}}

{{/*
The namespaces whose job creates the webhook is sent, and where kube-queue suspends them: the names listed, or with
"*" every namespace a quota group lists, and the webhook called for every namespace but the cluster's own and
kube-queue's. A listed name of those is refused: suspending the cluster's own jobs could stop the cluster's add-ons.
*/}}
{{- define "kube-queue.suspendAtCreationIn" -}}
{{- if has "*" .Values.suspendAtCreation.namespaces -}}*{{- else -}}{{ join "," .Values.suspendAtCreation.namespaces }}{{- end -}}
{{- end -}}

{{- define "kube-queue.suspendAtCreationSelector" -}}
namespaceSelector:
  matchExpressions:
    - key: kubernetes.io/metadata.name
      {{- if has "*" .Values.suspendAtCreation.namespaces }}
      operator: NotIn
      values: {{ list "kube-system" "kube-public" "kube-node-lease" .Release.Namespace | uniq | toJson }}
      {{- else }}
      operator: In
      values: {{ .Values.suspendAtCreation.namespaces | toJson }}
      {{- end }}
{{- end -}}

{{/* What both suspend-at-creation webhooks share: where they call, which namespaces, and their policies. */}}
{{- define "kube-queue.suspendAtCreationWebhook" -}}
clientConfig:
  service:
    name: kube-queue-controller
    namespace: {{ .Release.Namespace }}
    path: /webhooks/suspend-at-creation
    port: {{ .Values.serving.port }}
{{ include "kube-queue.suspendAtCreationSelector" . }}
admissionReviewVersions: ["v1"]
sideEffects: None
timeoutSeconds: {{ .Values.suspendAtCreation.timeoutSeconds }}
# Ignore: a job created while kube-queue is down runs unqueued (charged where chargeUnsuspendedIn lists its
# namespace); Fail: no job of those namespaces can be created while kube-queue is down
failurePolicy: {{ .Values.suspendAtCreation.failurePolicy }}
matchPolicy: Equivalent
reinvocationPolicy: Never
{{- end -}}

{{/*
The preset switches (values presets) and their files in the chart's presets/ folder (docs/kinds.md, "Presets").
*/}}
{{- define "kube-queue.presetFiles" -}}
jobSet: presets/jobset.yaml
rayJob: presets/rayjob.yaml
rayCluster: presets/raycluster.yaml
trainJob: presets/trainjob.yaml
appWrapper: presets/appwrapper.yaml
paddleJob: presets/paddlejob.yaml
xgboostJob: presets/xgboostjob.yaml
jaxJob: presets/jaxjob.yaml
{{- end -}}

{{/*
One preset's QueuedKind, as its file writes it: (list $ "jobSet"). A file that is missing, is not one kube-queue.io/v1alpha1
QueuedKind or names no spec.group and spec.plural fails the render: the RBAC is read from those two fields.
*/}}
{{- define "kube-queue.preset" -}}
{{- $root := index . 0 -}}
{{- $key := index . 1 -}}
{{- $file := index (include "kube-queue.presetFiles" $root | fromYaml) $key -}}
{{- if not $file -}}
{{- fail (printf "presets.%s: no such preset" $key) -}}
{{- end -}}
{{- $text := $root.Files.Get $file -}}
{{- if not $text -}}
{{- fail (printf "presets.%s: %s is not in the chart" $key $file) -}}
{{- end -}}
{{- $object := fromYaml $text -}}
{{- if or (hasKey $object "Error") (ne (toString (get $object "kind")) "QueuedKind") (ne (toString (get $object "apiVersion")) "kube-queue.io/v1alpha1") -}}
{{- fail (printf "presets.%s: %s is not a kube-queue.io/v1alpha1 QueuedKind" $key $file) -}}
{{- end -}}
{{- if not (and (dig "spec" "group" "" $object) (dig "spec" "plural" "" $object)) -}}
{{- fail (printf "presets.%s: %s names no spec.group and spec.plural" $key $file) -}}
{{- end -}}
{{- $text -}}
{{- end -}}

{{/*
The resources kube-queue queues by declaration and is granted the job verbs on: each preset switched on (its file's
spec.group and spec.plural) and each declaredKinds entry, as a YAML list of {group, plural}, sorted, no duplicates.
*/}}
{{- define "kube-queue.declaredResources" -}}
{{- $resources := list -}}
{{- range $key, $on := .Values.presets -}}
{{- if $on -}}
{{- $spec := (include "kube-queue.preset" (list $ $key) | fromYaml).spec -}}
{{- $resources = append $resources (printf "%s/%s" $spec.group $spec.plural) -}}
{{- end -}}
{{- end -}}
{{- range .Values.declaredKinds -}}
{{- $resources = append $resources (printf "%s/%s" .group .plural) -}}
{{- end -}}
{{- range $resources | uniq | sortAlpha }}
- group: {{ (splitList "/" .) | first | quote }}
  plural: {{ (splitList "/" .) | last | quote }}
{{- end -}}
{{- end -}}
