# One job for one router, like a RouterScript of the cdktf constructs. Chain jobs of one router with
# `depends_on = [module.<previous>]`; jobs of different routers run in parallel.

variable "name" {
  description = "Where the job is declared, such as \"office/edge-1/dns\"; shown in routerjobs messages, and the default description."
  type        = string
  validation {
    condition     = length(var.name) > 0
    error_message = "name must not be empty."
  }
}

variable "router_id" {
  description = "The router's id at the service: a lowercase UUID."
  type        = string
  validation {
    condition     = can(regex("^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", var.router_id))
    error_message = "router_id must be a lowercase UUID."
  }
}

variable "script" {
  description = "RouterOS commands, 1 to 2000 characters. In a .tf file a literal dollar-brace or percent-brace is written doubled: $${ and %%{."
  type        = string
  validation {
    condition     = length(var.script) > 0 && length(var.script) <= 2000
    error_message = "script must be 1 to 2000 characters."
  }
}

variable "description" {
  description = "Shown in the service's orchestration log, 1 to 100 characters. Default: name."
  type        = string
  default     = null
  validation {
    condition     = var.description == null || (length(coalesce(var.description, "-")) > 0 && length(coalesce(var.description, "-")) <= 100)
    error_message = "description must be 1 to 100 characters."
  }
}

variable "destroy_script" {
  description = "Commands that undo the script, submitted on destroy and before a replacement. Default: nothing runs at destroy."
  type        = string
  default     = null
  validation {
    condition     = var.destroy_script == null || (length(coalesce(var.destroy_script, "-")) > 0 && length(coalesce(var.destroy_script, "-")) <= 2000)
    error_message = "destroy_script must be 1 to 2000 characters."
  }
}

variable "destroy_description" {
  description = "Description of the destroy job. Default: description."
  type        = string
  default     = null
  validation {
    condition     = var.destroy_description == null || (length(coalesce(var.destroy_description, "-")) > 0 && length(coalesce(var.destroy_description, "-")) <= 100)
    error_message = "destroy_description must be 1 to 100 characters."
  }
}

variable "make_backup" {
  description = "Back up the router's configuration before the script runs."
  type        = bool
  default     = true
  nullable    = false
}

variable "express_execute" {
  description = "Run at once instead of at the service's next scheduler tick."
  type        = bool
  default     = false
  nullable    = false
}

variable "needs_acknowledgement" {
  description = "false only for scripts that cut the router off (a reboot)."
  type        = bool
  default     = true
  nullable    = false
}

variable "notify_url" {
  description = "An https URL the service posts status notifications to. Default: none (routerjobs apply may use ROUTERJOBS_NOTIFY_URL)."
  type        = string
  default     = null
  validation {
    condition     = var.notify_url == null || can(regex("^https://[^/?#]+", coalesce(var.notify_url, "-")))
    error_message = "notify_url must be an absolute https URL."
  }
}

variable "wait_for" {
  description = "How routerjobs apply learns the outcome: poll, receiver or auto."
  type        = string
  default     = "auto"
  nullable    = false
  validation {
    condition     = contains(["poll", "receiver", "auto"], var.wait_for)
    error_message = "wait_for must be poll, receiver or auto."
  }
}

variable "timeout_ms" {
  description = "How long routerjobs apply waits for the job, in milliseconds."
  type        = number
  default     = 600000
  nullable    = false
  validation {
    condition     = var.timeout_ms > 0 && floor(var.timeout_ms) == var.timeout_ms
    error_message = "timeout_ms must be a positive whole number."
  }
}

variable "cli" {
  description = "The command (one shell line) to which \" apply\" is appended, such as \"npx routerjobs\"."
  type        = string
  default     = "routerjobs"
  nullable    = false
  validation {
    condition     = length(trimspace(var.cli)) > 0 && !strcontains(var.cli, "\n")
    error_message = "cli must be one non-empty line."
  }
}
