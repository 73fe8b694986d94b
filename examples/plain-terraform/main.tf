# One routerjobs job as a terraform_data resource, the same resource the cdktf constructs write.
# routerjobs apply reads the job from ROUTERJOBS_JOB and the service URL and token from the environment of
# `terraform apply`: nothing secret is in this module, its plan or its state.

terraform {
  # terraform_data and local-exec `quiet` arrived in 1.4.
  required_version = ">= 1.4"
}

locals {
  description = coalesce(var.description, var.name)

  # What runs, per phase; job_key hashes exactly these fields.
  definitions = merge(
    { create = { script = var.script, description = local.description } },
    var.destroy_script == null ? {} : {
      destroy = { script = var.destroy_script, description = coalesce(var.destroy_description, local.description) }
    },
  )

  # The canonical array that jobKey() in src/contract/apply-job.ts hashes, in the same order.
  canonical = {
    for phase, job in local.definitions : phase => jsonencode([
      1, phase, var.router_id, job.description, job.script,
      var.make_backup, var.express_execute, var.needs_acknowledgement, var.notify_url,
    ])
  }

  # jsonencode writes <, >, &, U+2028 and U+2029 as \u escapes; JSON.stringify writes them as they are.
  # Undo those five escapes so the bytes hashed are JSON.stringify's. Escaped backslashes are parked on
  # U+0001 first (jsonencode never writes it raw), so a script holding the text \u003c stays as it is.
  job_keys = {
    for phase, text in local.canonical : phase => sha256(replace(
      replace(replace(replace(replace(replace(
        replace(text, "\\\\", "\u0001"),
      "\\u003c", "<"), "\\u003e", ">"), "\\u0026", "&"), "\\u2028", "\u2028"), "\\u2029", "\u2029"),
      "\u0001", "\\\\",
    ))
  }

  jobs = {
    for phase, job in local.definitions : phase => jsonencode(merge(
      {
        version               = 1
        phase                 = phase
        resource              = var.name
        router_id             = var.router_id
        description           = job.description
        script                = job.script
        make_backup           = var.make_backup
        express_execute       = var.express_execute
        needs_acknowledgement = var.needs_acknowledgement
        wait_for              = var.wait_for
        timeout_ms            = var.timeout_ms
        job_key               = local.job_keys[phase]
      },
      var.notify_url == null ? {} : { notify_url = var.notify_url },
    ))
  }
}

resource "terraform_data" "job" {
  # A new key replaces the resource, and the creation-time provisioner submits the new job.
  triggers_replace = { job_key = local.job_keys.create }

  # A destroy provisioner may read only `self`, so what it needs is kept here (an update in place).
  # `routerjobs` is the job's identity, which `routerjobs reconcile` and `deploy` read from the state.
  input = {
    destroy_job = lookup(local.jobs, "destroy", "")
    cli         = var.cli
    routerjobs = jsonencode({
      router_id   = var.router_id
      resource    = var.name
      job_key     = local.job_keys.create
      description = local.description
    })
  }

  provisioner "local-exec" {
    command = "${var.cli} apply"
    quiet   = true
    environment = {
      ROUTERJOBS_JOB         = local.jobs.create
      ROUTERJOBS_INSTANCE_ID = self.id
    }
  }

  provisioner "local-exec" {
    when    = destroy
    command = self.input.destroy_job == "" ? "exit 0" : "${self.input.cli} apply"
    quiet   = true
    environment = {
      ROUTERJOBS_JOB         = self.input.destroy_job
      ROUTERJOBS_INSTANCE_ID = self.id
    }
  }
}

output "job_key" {
  description = "sha256 of the create job's definition, as routerjobs apply checks it."
  value       = local.job_keys.create
}

output "jobs" {
  description = "The job JSON per phase (create, and destroy when set), exactly as ROUTERJOBS_JOB receives it."
  value       = local.jobs
}

output "id" {
  description = "Terraform's id of the job resource; a new one for every run of the job."
  value       = terraform_data.job.id
}
