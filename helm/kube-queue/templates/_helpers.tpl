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
